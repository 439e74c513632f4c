/** A minimal real SSE reader over fetch: yields each `data:` payload parsed as JSON. */
export async function readSse(res: Response, opts: { until?: (e: any) => boolean } = {}): Promise<any[]> {
  const events: any[] = [];
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let idx: number;
    while ((idx = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, idx);
      buffer = buffer.slice(idx + 2);
      const data = block
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n');
      if (!data) continue;
      const e = JSON.parse(data);
      events.push(e);
      if (opts.until?.(e)) {
        await reader.cancel();
        return events;
      }
    }
  }
  return events;
}

import { startGateway } from '../helpers/gateway';

/** Reads SSE `data:` events as they arrive, so the test can act between them. */
function sseEvents(res: Response) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const events: any[] = [];
  const waiter: { notify: (() => void) | null } = { notify: null };
  const done = (async () => {
    for (;;) {
      const { value, done: finished } = await reader.read();
      if (finished) break;
      buffer += decoder.decode(value, { stream: true });
      let i: number;
      while ((i = buffer.indexOf('\n\n')) >= 0) {
        const line = buffer
          .slice(0, i)
          .split('\n')
          .find((l) => l.startsWith('data:'));
        buffer = buffer.slice(i + 2);
        if (line) events.push(JSON.parse(line.slice(5)));
        waiter.notify?.();
      }
    }
  })();
  const waitFor = async (pred: (e: any) => boolean) => {
    while (!events.some(pred)) await new Promise<void>((r) => (waiter.notify = r));
  };
  return { events, done, waitFor };
}

test('stopping the gateway ends open SSE streams with an error event and closes cleanly', async () => {
  // Each chunk waits 5 s upstream, so the stream is certainly open when the stop comes.
  const gw = await startGateway({ MOCK_LATENCY_MS: '5000' });
  try {
    const text = 'First sentence of a long story. Second sentence of the same story. Third and last sentence.';
    const res = await gw.request('/api/v1/generate-progressive', {
      method: 'POST',
      json: { text: text.repeat(8), options: { provider: 'mock', format: 'wav' } },
    });
    expect(res.status).toBe(200);
    const stream = sseEvents(res);
    await stream.waitFor((e) => e.type === 'started');
    const stopping = Date.now();
    await gw.stop();
    await stream.done;
    expect(Date.now() - stopping).toBeLessThan(4000);
    const last = stream.events.at(-1);
    expect(last).toMatchObject({ type: 'error', code: 'SERVICE_UNAVAILABLE' });
    expect(last.message).toMatch(/shutting down/);
    expect(stream.events.some((e) => e.type === 'complete')).toBe(false);
    await expect(fetch(`${gw.url}/api/v1/health/live`)).rejects.toThrow();
  } finally {
    await gw.close();
  }
});

/** Reading a vendor's answer within limits: the audio body up to a size, an error body's first bytes. */

/** Thrown when a vendor's body is larger than the call allows (declared or as it arrives). */
export class ResponseTooLargeError extends Error {}

const ERROR_BODY_PREVIEW_BYTES = 4096;

/** The body, at most `maxBytes`; `onPart` sees each part as it arrives (with the total so far). */
export async function readLimited(res: Response, maxBytes: number, onPart?: (part: Buffer, soFar: number) => void): Promise<Buffer> {
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    throw new ResponseTooLargeError(`${declared} bytes declared, limit ${maxBytes}`);
  }
  if (!res.body) return Buffer.alloc(0);
  const parts: Buffer[] = [];
  let total = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new ResponseTooLargeError(`more than ${maxBytes} bytes`);
    }
    const part = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    parts.push(part);
    try {
      onPart?.(part, total);
    } catch (err) {
      await reader.cancel().catch(() => undefined);
      throw err;
    }
  }
  return Buffer.concat(parts, total);
}

/** The start of an error body (enough for a message), then the connection is released. */
export async function readPreview(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  try {
    while (total < ERROR_BODY_PREVIEW_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      total += value.byteLength;
    }
  } catch {
    // a broken error body still leaves us the status code
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(parts).subarray(0, ERROR_BODY_PREVIEW_BYTES).toString('utf8');
}

export function networkCause(err: unknown): string {
  for (let e = err as { code?: unknown; cause?: unknown } | null | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string' && e.code !== 'ERR_INVALID_ARG_TYPE') return e.code;
  }
  return err instanceof Error ? err.message : String(err);
}

import type { IncomingHttpHeaders } from 'node:http';

/**
 * tRPC's HTTP protocol for one plain query, as its adapter speaks it, for the two places that answer
 * such a query without the adapter (the front's seam for read-model hits, gateway/start/trpc-plain-query.ts
 * for computed ones): which requests are plain, what input they carry, and the bytes and headers of
 * a result.
 */

/**
 * tRPC chooses between JSON and JSON lines on `trpc-accept` and `accept`, and its answers name just
 * those in `Vary`; a result is `application/json` (as its adapter sets them, from a Fetch `Headers`:
 * lower case, in name order).
 */
export const TRPC_RESULT_HEADERS: readonly string[] = ['content-type', 'application/json', 'vary', 'trpc-accept, accept'];

/** A result's body around its data's JSON text. */
export const trpcResultText = (dataJson: string): string => `{"result":{"data":${dataJson}}}`;

/** Whether a GET asks for a plain JSON answer (no JSON lines, no streaming protocol). */
export const wantsPlainJson = (headers: IncomingHttpHeaders): boolean => headers['trpc-accept'] === undefined && !headers.accept?.includes('application/jsonl');

/**
 * The `input` text of a plain query's search string (`input=` at most once, nothing else): undefined
 * when there is none (tRPC reads an absent or empty input as no input), null when the query is not
 * plain (tRPC's adapter answers it).
 */
export function plainTrpcInput(search: string): string | undefined | null {
  let text: string | undefined;
  for (const [name, value] of new URLSearchParams(search)) {
    if (name !== 'input' || text !== undefined) return null;
    text = value;
  }
  return text || undefined;
}

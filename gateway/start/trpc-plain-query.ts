import type { Request, Response, NextFunction } from 'express';
import type { AnyTRPCProcedure } from '@trpc/server';
import { appRouter } from '../../trpc/router';
import { jsonTextOf, type TrpcContext } from '../../trpc/init';
import { plainTrpcInput, TRPC_RESULT_HEADERS, trpcResultText, wantsPlainJson } from '../../transport/trpc-http';

/**
 * A plain tRPC query (`GET /trpc/<procedure>?input=…`: one call, JSON, no batching or streaming)
 * called straight through the procedure, its middlewares and all (charging, the result cap, input
 * checks), and answered with tRPC's own bytes: `{"result":{"data":…}}`, `content-type` and `vary`
 * as tRPC sets them. tRPC 11's node adapter turns every request into a Fetch `Request` and back
 * (headers copied, abort signals, a web stream piped into the response): most of a small query's
 * cost, and a third of a computed list's (issue #36). The result's JSON text is the one the result
 * cap already measured (`jsonTextOf`), so it is serialized once.
 *
 * Anything else goes to tRPC's adapter untouched. A call that throws goes there too, with the
 * error it threw: `createContext` hands that error back (`earlierError`), so tRPC answers it through
 * its own error path (shape, status, `Retry-After`, `onError`) without running the call twice (the
 * budget is charged once).
 */

/**
 * The @trpc/server versions this seam was read against: it reads the router's procedure table
 * (`_def.procedures`) and calls a procedure with the options tRPC's own caller passes. An upgrade
 * fails tests/unit/framework-seams.test.ts until the seam is read against the new version.
 */
export const TRPC_VERSIONS_CHECKED = ['11.25.2'];

const QUERY_PROCEDURES: ReadonlyMap<string, AnyTRPCProcedure> = new Map(
  Object.entries(appRouter._def.procedures as unknown as Record<string, AnyTRPCProcedure>).filter(([, p]) => p._def.type === 'query'),
);
/** The thrown error of a plain query, for tRPC's adapter to answer (see `plainQuery`). */
export const EARLIER_ERROR = 'trpcEarlierError';

/** The procedure path and input of a plain query's URL, or null when it is not one. */
function plainInput(url: string): { path: string; text: string | undefined } | null {
  const q = url.indexOf('?');
  if (q < 0) return { path: url.slice(1), text: undefined };
  const text = plainTrpcInput(url.slice(q + 1));
  return text === null ? null : { path: url.slice(1, q), text };
}

export function plainQuery(contextOf: (req: Request) => TrpcContext) {
  return (req: Request, res: Response, next: NextFunction) => {
    const h = req.headers;
    if (req.method !== 'GET' || h['content-type'] !== undefined || !wantsPlainJson(h)) return next();
    const plain = plainInput(req.url);
    const procedure = plain && QUERY_PROCEDURES.get(plain.path);
    if (!procedure) return next();
    let input: unknown;
    try {
      input = plain.text === undefined ? undefined : JSON.parse(plain.text);
    } catch {
      return next(); // tRPC answers its own parse error
    }
    const call = procedure({ path: plain.path, getRawInput: async () => input, ctx: contextOf(req), type: 'query', signal: undefined, batchIndex: 0 });
    (call as Promise<unknown>).then(
      (data) => {
        if (res.headersSent) return;
        let body: string;
        try {
          body = data !== null && typeof data === 'object' ? trpcResultText(jsonTextOf(data)) : JSON.stringify({ result: { data } });
        } catch (error) {
          res.locals[EARLIER_ERROR] = error; // not JSON: tRPC's internal error, as its adapter would answer
          return next();
        }
        res.statusCode = 200;
        for (let i = 0; i < TRPC_RESULT_HEADERS.length; i += 2) res.setHeader(TRPC_RESULT_HEADERS[i], TRPC_RESULT_HEADERS[i + 1]);
        res.end(body);
      },
      (error: unknown) => {
        res.locals[EARLIER_ERROR] = error;
        next();
      },
    );
  };
}

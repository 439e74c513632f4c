import type { ServerResponse } from 'node:http';

/**
 * The seam's answers made in one event-loop turn, written together at its end.
 *
 * Under load one turn of the loop reads many requests (the poll phase hands node every socket that
 * is ready). Written as each is answered, the answers trickle out between the work on the next ones,
 * and every write finds its client asleep and wakes it: on this 2-core machine a hit's `writev` cost
 * about as much as the rest of its handling. Written together right after the poll phase (the
 * check phase, `setImmediate`), each client is woken once for the lot. Measured against the same
 * build answering at once: a cache-hit generate 150 → 90–113 µs of CPU per request and 1.4–1.6x the
 * throughput; the read-model hits 25–40 % less CPU. A quiet server reads one request per turn, so
 * its answer waits for nothing but that turn's end.
 *
 * (`socket.cork()` cannot do this: node's `res.end()` uncorks the socket fully.)
 */
export interface TurnWrites {
  /** Writes `head` (name, value, …) and `body` as a 200 at the end of this turn, then calls `after`. */
  send(res: ServerResponse, head: string[], body: Buffer, after: () => void): void;
}

interface Pending {
  res: ServerResponse;
  head: string[];
  body: Buffer;
  after: () => void;
}

export function createTurnWrites(): TurnWrites {
  let pending: Pending[] = [];
  const flush = () => {
    const batch = pending;
    pending = [];
    for (const w of batch) {
      // Something else answered meanwhile (it logs its own answer); a client that left gets the
      // write dropped by node, and the answer is still logged as made.
      if (w.res.headersSent) continue;
      try {
        w.res.writeHead(200, w.head);
        w.res.end(w.body);
        w.after();
      } catch (err) {
        // One answer that cannot be written must not keep the rest of the turn's from their clients.
        w.res.destroy(err as Error);
      }
    }
  };
  return {
    send(res, head, body, after) {
      if (pending.length === 0) setImmediate(flush);
      pending.push({ res, head, body, after });
    },
  };
}

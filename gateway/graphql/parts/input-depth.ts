import type { NextFunction, Request, Response } from 'express';
import { DomainError } from '../../../domain/errors';
import { graphqlExtensionsOf, toClientError } from '../../../transport/client-error';

/**
 * graphql-js parses (and validates, coerces, executes) nested literals recursively: a literal nested
 * ~1,700 levels overflowed the stack and answered INTERNAL_ERROR (issue 37). The nesting of a
 * document's brackets is counted first, in one pass over its text that recurses nowhere (strings,
 * block strings and comments skipped), and a document nested deeper than this is refused with 400
 * GRAPHQL_INPUT_TOO_DEEP before anything parses it. Selections are 12 deep at most (graphql-armor),
 * so 64 leaves every legitimate input far more room than it needs.
 */
export const MAX_DOCUMENT_NESTING = 64;

/** The deepest nesting of `{`, `[` and `(` outside strings and comments, stopping once it passes `limit`. */
export function documentNesting(text: string, limit = MAX_DOCUMENT_NESTING): number {
  let depth = 0;
  let deepest = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x23 /* # */) {
      while (i < n && text.charCodeAt(i) !== 0x0a && text.charCodeAt(i) !== 0x0d) i++;
    } else if (c === 0x22 /* " */) {
      if (text.startsWith('"""', i)) {
        const end = blockStringEnd(text, i + 3);
        i = end < 0 ? n : end + 2;
      } else {
        for (i++; i < n; i++) {
          const s = text.charCodeAt(i);
          if (s === 0x5c /* \ */) i++;
          else if (s === 0x22 || s === 0x0a || s === 0x0d) break;
        }
      }
    } else if (c === 0x7b || c === 0x5b || c === 0x28) {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (c === 0x7d || c === 0x5d || c === 0x29) {
      if (depth > 0) depth--;
    }
  }
  return deepest;
}

/** Index of the closing `"""` of a block string whose text starts at `from` (`\"""` does not close it), or -1. */
function blockStringEnd(text: string, from: number): number {
  for (let i = text.indexOf('"""', from); i >= 0; i = text.indexOf('"""', i + 1)) {
    if (text.charCodeAt(i - 1) !== 0x5c) return i;
  }
  return -1;
}

export function inputTooDeep(limit = MAX_DOCUMENT_NESTING): DomainError {
  return new DomainError('GRAPHQL_INPUT_TOO_DEEP', `The document's selections or input values are nested more than ${limit} levels deep`, {
    details: { maxNesting: limit },
  });
}

/** Throws GRAPHQL_INPUT_TOO_DEEP when the query text is nested deeper than allowed. */
export function assertDocumentNesting(query: unknown, limit = MAX_DOCUMENT_NESTING): void {
  if (typeof query === 'string' && documentNesting(query, limit) > limit) throw inputTooDeep(limit);
}

/**
 * In front of Apollo (which parses the text itself): a document nested too deep is answered here
 * with 400 and the GraphQL error shape Apollo would give, before Apollo's parser sees it.
 */
export function documentNestingGuard(limit = MAX_DOCUMENT_NESTING) {
  return (req: Request, res: Response, next: NextFunction) => {
    const query = (req.body as { query?: unknown } | undefined)?.query ?? req.query?.query;
    try {
      assertDocumentNesting(query, limit);
    } catch (thrown) {
      const err = toClientError(thrown);
      res
        .status(err.status)
        .type('application/json')
        .send(JSON.stringify({ errors: [{ message: err.message, extensions: graphqlExtensionsOf(err) }] }));
      return;
    }
    next();
  };
}

import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { graphqlExtensionsOf, toClientError } from '../../../transport/client-error';
import type { Logger } from '../../logger';
import type { Part } from '../pipeline';

/**
 * Domain errors keep their catalogue code in `extensions.code` (the same code REST answers with) plus
 * the HTTP status it maps to; anything unexpected becomes INTERNAL_ERROR with no detail. GraphQL's
 * own parse and validation errors are already safe and descriptive; in production their "Did you
 * mean" hints are hidden, so the schema cannot be guessed field by field with introspection off.
 */
export function errorFormatting(log: Logger, production: boolean): Part {
  return {
    name: 'error-formatting',
    formatError(formatted, error) {
      const original = error instanceof GraphQLError ? error.originalError : error;
      if (!original || (original instanceof GraphQLError && !original.originalError)) {
        const { extensions, message, ...rest } = formatted;
        const { stacktrace: _s, exception: _e, ...ext } = (extensions ?? {}) as Record<string, unknown>;
        return { ...rest, message: production ? hideSuggestions(message) : message, extensions: ext };
      }
      const err = toClientError(original);
      if (err.unexpected && err.serverSide) log.error({ err: original }, 'graphql resolver failed');
      return { message: err.message, locations: formatted.locations, path: formatted.path, extensions: graphqlExtensionsOf(err) };
    },
  };
}

/** graphql-armor's mask for field suggestions. */
function hideSuggestions(message: string): string {
  return message.replace(/Did you mean ".+"/g, '[Suggestion hidden]');
}

/** A refusal (a domain error, a budget's 429) as a GraphQL error: formatted like any other into the same `extensions`. */
export function asGraphqlError(thrown: unknown): GraphQLError {
  const err = toClientError(thrown);
  return new GraphQLError(err.message, { originalError: err.error, extensions: { http: { status: err.status } } });
}

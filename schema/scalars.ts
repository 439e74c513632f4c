import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { z } from 'zod';

/** RFC 3339 date-time with a zone (Z or ±hh:mm), the form the domain accepts for timestamps. */
const isoDateTime = z.iso.datetime({ offset: true });

function checked(value: unknown, where: string): string {
  if (typeof value === 'string' && isoDateTime.safeParse(value).success && !Number.isNaN(Date.parse(value))) return value;
  throw new GraphQLError(
    `DateTime ${where} must be an ISO 8601 date-time with a zone, such as 2026-01-31T12:00:00Z; got ${JSON.stringify(value)?.slice(0, 60)}`,
  );
}

/**
 * Every timestamp of the schema. Answers keep the exact ISO 8601 string the domain (and REST) gives
 * (a Date becomes its toISOString()); arguments are checked as RFC 3339 date-times and reach the
 * domain as the same string, so REST and GraphQL store identical values. graphql-scalars'
 * DateTime would hand resolvers a Date and re-format answers, changing what clients already see.
 */
export const DateTimeScalar = new GraphQLScalarType<string, string>({
  name: 'DateTime',
  description: 'An ISO 8601 / RFC 3339 date-time with a zone, e.g. 2026-01-31T12:00:00.000Z (answers are UTC, as REST writes them).',
  specifiedByURL: 'https://scalars.graphql.org/andimarek/date-time',
  serialize(value) {
    if (value instanceof Date) {
      if (Number.isNaN(value.getTime())) throw new GraphQLError('DateTime cannot represent an invalid Date');
      return value.toISOString();
    }
    return checked(value, 'answer');
  },
  parseValue(value) {
    return checked(value, 'value');
  },
  parseLiteral(ast) {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('DateTime must be a string, such as "2026-01-31T12:00:00Z"', { nodes: ast });
    return checked(ast.value, 'value');
  },
});

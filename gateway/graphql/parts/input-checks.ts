import { defaultFieldResolver, GraphQLObjectType, type GraphQLSchema } from 'graphql';
import { rejectUnstorableStrings } from '../../../domain/validation';
import type { Part } from '../pipeline';

/**
 * PostgreSQL text has no U+0000 and UTF-8 no lone surrogate. Variables are checked as a whole before
 * anything runs (inline literals never get that far: graphql-js's lexer refuses lone surrogates
 * itself); `guardArguments` covers arguments of fields resolved below the root.
 */
export function inputChecks(): Part {
  return {
    name: 'input-checks',
    admit(op) {
      rejectUnstorableStrings(op.variables);
    },
  };
}

/**
 * Every argument of every field is checked too (ids skip the domain's parseInput). Only fields that
 * declare arguments are wrapped: a type-graphql global middleware would put an async middleware chain
 * on every field of every row, which costs list reads their throughput.
 */
export function guardArguments(schema: GraphQLSchema) {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!(type instanceof GraphQLObjectType) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      if (!field.args.length) continue;
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = (root, args, context, info) => {
        rejectUnstorableStrings(args);
        return resolve(root, args, context, info);
      };
    }
  }
}

import { hash } from 'node:crypto';
import { DomainError } from '../../domain/errors';
import { assertDocumentNesting } from './parts/input-depth';
import {
  execute,
  GraphQLError,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLFormattedError,
  type GraphQLSchema,
  type ParseOptions,
  type ValidationRule,
} from 'graphql';
import type { GqlContext } from '../../resolvers/context';

/**
 * One GraphQL operation, as both transports hand it to the pipeline: Apollo (HTTP) after its own
 * parse and validation with the pipeline's rules, graphql-ws after `Pipeline.prepare`.
 */
export interface Operation {
  document: DocumentNode;
  /** SHA-256 of the query text (Apollo's `queryHash`; graphql-ws computes the same): answers kept for one text serve both transports. */
  documentKey: string;
  /** The name the client asked for (null: none given). */
  operationName: string | null;
  variables: Record<string, unknown>;
  context: GqlContext;
}

export type Execute = (op: Operation) => Promise<ExecutionResult>;

/**
 * One concern of the pipeline, in the style of an Envelop plugin: what it adds to parsing and
 * validation, what it checks once the variables are known, how it wraps execution.
 */
export interface Part {
  name: string;
  parseOptions?: ParseOptions;
  /** Rules run with graphql-js's standard ones, before the variables are known. */
  validationRules?: readonly ValidationRule[];
  /** Before anything runs (subscriptions too): throws the refusal (a DomainError or a client error). */
  admit?(op: Operation): void | Promise<void>;
  /** Wraps execution of queries and mutations; the first part listed is the outermost. */
  execute?(op: Operation, next: Execute): Promise<ExecutionResult>;
  /** The result `execute` would answer without executing anything (a kept answer), or undefined. */
  kept?(op: Operation): Promise<ExecutionResult | undefined>;
  /** The error a client sees (both transports), given graphql-js's own formatting. */
  formatError?(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError;
}

/** A query text parsed and validated, with its key. */
export interface Prepared {
  document: DocumentNode;
  documentKey: string;
}

export interface Pipeline {
  schema: GraphQLSchema;
  parseOptions: ParseOptions;
  /** The parts' rules (graphql-js's standard rules not included: Apollo adds those itself). */
  validationRules: ValidationRule[];
  /** Parses and validates a query text (graphql-ws), kept by its text while valid. */
  prepare(query: string): Prepared | { errors: readonly GraphQLError[] };
  admit(op: Operation): Promise<void>;
  execute: Execute;
  /**
   * The result execution would answer from what the parts keep, computing nothing (the front's seam);
   * undefined when nothing is kept for the operation at the read model's current version.
   */
  kept(op: Operation): Promise<ExecutionResult | undefined>;
  formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError;
  /** A result as the client gets it: its errors formatted (graphql-ws; Apollo formats its own). */
  formatResult(result: ExecutionResult): ExecutionResult;
}

/** How many distinct documents `prepare` keeps parsed and validated. */
const DOCUMENT_CACHE_SIZE = 200;

/** The SHA-256 Apollo names a query text by (its `queryHash`). */
export function documentKeyOf(query: string): string {
  return hash('sha256', query, 'hex');
}

/** graphql-js's own execution: what runs when no part answers. */
const graphqlJsExecute =
  (schema: GraphQLSchema): Execute =>
  async (op) =>
    execute({ schema, document: op.document, operationName: op.operationName, variableValues: op.variables, contextValue: op.context });

export function createPipeline(schema: GraphQLSchema, parts: readonly Part[]): Pipeline {
  const parseOptions: ParseOptions = Object.assign({}, ...parts.map((p) => p.parseOptions ?? {}));
  const validationRules = parts.flatMap((p) => p.validationRules ?? []);
  const rules = [...specifiedRules, ...validationRules];
  const admitters = parts.filter((p) => p.admit).map((p) => p.admit!.bind(p));
  const formatters = parts.filter((p) => p.formatError).map((p) => p.formatError!.bind(p));
  const keepers = parts.filter((p) => p.kept).map((p) => p.kept!.bind(p));
  const execute = parts.reduceRight<Execute>((next, part) => (part.execute ? (op) => part.execute!(op, next) : next), graphqlJsExecute(schema));

  // Parse and validation depend only on the query text (variables are coerced at execution), so a
  // valid document is kept by its text, as Apollo does over HTTP: a thousand subscribers sending the
  // same subscription share one AST and are validated once. Refused documents are not kept.
  const documents = new Map<string, Prepared>(); // insertion order = least recently used first
  const prepare: Pipeline['prepare'] = (query) => {
    const known = documents.get(query);
    if (known) {
      documents.delete(query);
      documents.set(query, known);
      return known;
    }
    let document: DocumentNode;
    try {
      // Before the parser recurses into it (parts/input-depth.ts).
      assertDocumentNesting(query);
      document = parse(query, parseOptions);
    } catch (err) {
      if (err instanceof DomainError) return { errors: [new GraphQLError(err.message, { originalError: err })] };
      return { errors: [err instanceof GraphQLError ? err : new GraphQLError('The document could not be parsed')] };
    }
    const errors = validate(schema, document, rules);
    if (errors.length) return { errors };
    const prepared = { document, documentKey: documentKeyOf(query) };
    documents.set(query, prepared);
    if (documents.size > DOCUMENT_CACHE_SIZE) documents.delete(documents.keys().next().value!);
    return prepared;
  };

  const formatError: Pipeline['formatError'] = (formatted, error) => formatters.reduce((f, format) => format(f, error), formatted);
  return {
    schema,
    parseOptions,
    validationRules,
    prepare,
    async admit(op) {
      for (const admit of admitters) await admit(op);
    },
    execute,
    async kept(op) {
      for (const kept of keepers) {
        const result = await kept(op);
        if (result !== undefined) return result;
      }
      return undefined;
    },
    formatError,
    formatResult(result) {
      if (!result.errors?.length) return result;
      return { ...result, errors: result.errors.map((e) => formatError(e.toJSON(), e) as unknown as GraphQLError) };
    },
  };
}

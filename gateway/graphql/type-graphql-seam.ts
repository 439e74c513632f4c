import { isInterfaceType, isObjectType, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import { getMetadataStorage } from 'type-graphql';

/**
 * The one place the gateway reaches under type-graphql's public API: its metadata storage (exported,
 * but its shape is internal) and the shape of the resolvers it builds. What is done here — plain
 * property fields without a resolver, field resolvers called directly — has no public option in
 * type-graphql; tests/unit/framework-seams.test.ts fails on any version this was not checked
 * against, so an upgrade is looked at here before it lands.
 */
export const TYPE_GRAPHQL_VERSIONS_CHECKED = ['2.0.0-rc.4'];

type FieldMetadata = { name: string; schemaName: string; target: Function; middlewares?: unknown[]; roles?: unknown[] };
type TypeMetadata = { name: string; target: Function; fields?: FieldMetadata[] };

/**
 * type-graphql gives every plain property field (`@Field() title`) a resolver of its own that builds a
 * resolver-data object and runs the (empty) middleware chain before reading `root[name]`, so graphql-jit
 * calls a function, with its error and promise handling, for every field of every row. A field without
 * a resolver is compiled by graphql-jit into a property read. This removes those resolvers where they
 * do nothing else: no field middleware, no `@Authorized` roles, the property named as the field (the
 * gateway passes type-graphql no global middleware and no auth checker: permissions are checked in the
 * resolvers and the domain, which keep their resolvers). graphql-js's default resolver reads the same
 * property, so answers are the same on both executors. Returns how many fields were changed.
 */
export function plainPropertyFields(schema: GraphQLSchema): number {
  const storage = getMetadataStorage() as unknown as { objectTypes: TypeMetadata[]; interfaceTypes: TypeMetadata[] };
  const defsByTarget = new Map<Function, TypeMetadata>();
  for (const def of [...storage.objectTypes, ...storage.interfaceTypes]) defsByTarget.set(def.target, def);
  let changed = 0;
  for (const def of [...storage.objectTypes, ...storage.interfaceTypes]) {
    const type = schema.getType(def.name);
    if (!isObjectType(type) && !isInterfaceType(type)) continue;
    for (const [fieldName, field] of Object.entries(type.getFields())) {
      if (!isBasicResolver(field.resolve)) continue;
      const meta = fieldMetadataOf(def.target, fieldName, defsByTarget);
      if (!meta || meta.middlewares?.length || meta.roles) continue;
      if (meta.name === fieldName) field.resolve = undefined;
      else {
        const property = meta.name;
        field.resolve = (root: Record<string, unknown>) => root[property];
      }
      changed++;
    }
  }
  return changed;
}

/** The field's metadata on the class or the nearest class it extends that declares it. */
function fieldMetadataOf(target: Function, schemaName: string, defs: Map<Function, TypeMetadata>): FieldMetadata | undefined {
  for (let cls: Function | null = target; cls && cls !== Function.prototype; cls = Object.getPrototypeOf(cls)) {
    const found = defs.get(cls)?.fields?.find((f) => f.schemaName === schemaName);
    if (found) return found;
  }
  return undefined;
}

/** type-graphql's resolver for a plain property (`createBasicFieldResolver`): middlewares, then `root[name]`. */
function isBasicResolver(resolve: GraphQLFieldResolver<unknown, unknown> | undefined): boolean {
  return (
    typeof resolve === 'function' && /applyMiddlewares\)?\(container, resolverData, middlewares, \(\) => root\[fieldMetadata\.name\]\)/.test(resolve.toString())
  );
}

type ParamMetadata = { kind: string; index: number; propertyName?: string; getType?: () => unknown };
type FieldResolverMetadata = {
  kind: 'internal' | 'external';
  target: Function;
  methodName: string;
  schemaName: string;
  getObjectType?: () => Function;
  params?: ParamMetadata[];
  middlewares?: unknown[];
  roles?: unknown[];
};

/**
 * type-graphql's resolver for a `@FieldResolver` method looks its parameters up again on every call
 * (sorts them, reflects each one, runs the empty middleware chain), for every row of a list. For
 * methods that take only `@Root()` (a plain object: type-graphql hands it over as it is), `@Ctx()`
 * and `@Info()`, on a resolver class that holds no state, the same method is called directly with the
 * same values. Fields with middleware, roles or arguments keep type-graphql's resolver. Returns how many
 * fields were changed.
 */
export function directFieldResolvers(schema: GraphQLSchema, resolverClasses: readonly Function[]): number {
  const storage = getMetadataStorage() as unknown as { objectTypes: TypeMetadata[]; interfaceTypes: TypeMetadata[]; fieldResolvers: FieldResolverMetadata[] };
  const typeNameOf = new Map<Function, string>();
  for (const def of [...storage.objectTypes, ...storage.interfaceTypes]) typeNameOf.set(def.target, def.name);
  const instances = new Map<Function, Record<string, (...args: unknown[]) => unknown>>();
  let changed = 0;
  for (const meta of storage.fieldResolvers) {
    if (meta.kind !== 'external' || !resolverClasses.includes(meta.target) || meta.middlewares?.length || meta.roles) continue;
    const typeName = meta.getObjectType && typeNameOf.get(meta.getObjectType());
    const type = typeName ? schema.getType(typeName) : undefined;
    if (!isObjectType(type)) continue;
    const field = type.getFields()[meta.schemaName];
    if (!field || field.args.length || !isHandlerResolver(field.resolve)) continue;
    const params = [...(meta.params ?? [])].sort((a, b) => a.index - b.index);
    const plainRoot = (p: ParamMetadata) => p.kind === 'root' && !p.propertyName && (!p.getType || p.getType() === Object);
    if (!params.every((p, i) => p.index === i && (plainRoot(p) || p.kind === 'context' || p.kind === 'info'))) continue;
    let instance = instances.get(meta.target);
    if (!instance) {
      const made = new (meta.target as new () => Record<string, (...args: unknown[]) => unknown>)();
      if (Object.keys(made).length) continue; // holds state: type-graphql's container decides which instance
      instances.set(meta.target, (instance = made));
    }
    const method = instance[meta.methodName];
    const self = instance;
    const pick = params.map((p) =>
      p.kind === 'root'
        ? (root: unknown) => root
        : p.kind === 'info'
          ? (_root: unknown, _ctx: unknown, info: unknown) => info
          : p.propertyName
            ? (_root: unknown, ctx: Record<string, unknown>) => ctx[p.propertyName!]
            : (_root: unknown, ctx: unknown) => ctx,
    );
    if (pick.length === 2 && params[0].kind === 'root' && params[1].kind === 'context' && !params[1].propertyName) {
      field.resolve = (root, _args, ctx) => method.call(self, root, ctx);
    } else {
      field.resolve = (root, _args, ctx, info) =>
        method.apply(
          self,
          pick.map((f) => f(root, ctx, info)),
        );
    }
    changed++;
  }
  return changed;
}

/** type-graphql's resolver for a resolver-class method (`createHandlerResolver`). */
function isHandlerResolver(resolve: GraphQLFieldResolver<unknown, unknown> | undefined): boolean {
  return typeof resolve === 'function' && /getParams\)?\(resolverMetadata\.params, resolverData/.test(resolve.toString());
}

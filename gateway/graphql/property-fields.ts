import { isInterfaceType, isObjectType, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import { getMetadataStorage } from 'type-graphql';

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
        field.resolve = (root: any) => root[property];
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
  return typeof resolve === 'function' && /applyMiddlewares\)?\(container, resolverData, middlewares, \(\) => root\[fieldMetadata\.name\]\)/.test(resolve.toString());
}

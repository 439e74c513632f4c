import 'reflect-metadata';
import { graphql, isObjectType, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { buildGraphqlSchema } from '../../gateway/graphql';
import { InProcessEventBus } from '../../domain/events/bus';

/**
 * Plain property fields carry no resolver (graphql-jit reads the property), while fields with a
 * resolver of their own (permission checks, loaders, arguments) keep it; both executors answer alike.
 */
describe('GraphQL plain property fields', () => {
  let schema: GraphQLSchema;
  beforeAll(async () => {
    schema = await buildGraphqlSchema(new InProcessEventBus());
  });

  it('leaves plain properties without a resolver and keeps field resolvers', () => {
    const requirement = schema.getType('Requirement');
    const info = schema.getType('FrameworkInfo');
    const framework = schema.getType('Framework');
    if (!isObjectType(requirement) || !isObjectType(info) || !isObjectType(framework)) throw new Error('types missing');
    for (const name of ['id', 'title', 'status', 'priority', 'framework', 'createdAt']) expect(requirement.getFields()[name].resolve).toBeUndefined();
    for (const name of ['id', 'name', 'version']) expect(info.getFields()[name].resolve).toBeUndefined();
    // inherited from FrameworkInfo
    expect(framework.getFields().name.resolve).toBeUndefined();
    // the permission-checked, batched field and the catalogue lookup keep a resolver: the method, called directly
    for (const name of ['findings', 'frameworkInfo']) {
      const resolve = requirement.getFields()[name].resolve;
      expect(typeof resolve).toBe('function');
      expect(resolve!.toString()).not.toMatch(/getParams|applyMiddlewares/);
    }
    // root fields keep theirs
    expect(typeof schema.getQueryType()!.getFields().requirements.resolve).toBe('function');
  });

  it('answers the same through graphql-js and graphql-jit, permission refusals included', async () => {
    const findings = (allowed: boolean) => ({
      load: async (id: string) => [{ id: `f-${id}`, title: 'F', severity: 'high', status: 'open' }],
      allowed,
    });
    const row = (i: number) => ({ id: `r${i}`, title: `T${i}`, status: 'pending', priority: 'high', framework: 'gdpr', extra: () => 'no' });
    const contextFor = (allowed: boolean) => ({
      services: {
        requirements: { list: async () => ({ data: [row(1), row(2)], pagination: { total: 2, limit: 50, offset: 0, hasMore: false } }) },
        frameworks: {
          info: (id: string) => ({ id, name: 'GDPR', description: 'd', version: '2016/679', categories: [], requirementCount: 1, supported: true }),
        },
      },
      domain: {
        principal: { keyId: 'k', isAdmin: false, permissions: new Set(allowed ? ['read:requirements', 'read:audits'] : ['read:requirements']) },
        loaders: { pageFindings: new WeakMap(), findingsByRequirement: () => findings(allowed) },
      },
    });
    const query = `{ requirements(limit: 2) { data { id title status priority framework frameworkInfo { id name version } findings { id title severity status } } pagination { total hasMore } } }`;
    const compiled = compileQuery(schema, (await import('graphql')).parse(query));
    if (!isCompiledQuery(compiled)) throw new Error('not compiled');
    for (const allowed of [true, false]) {
      const viaJs = await graphql({ schema, source: query, contextValue: contextFor(allowed) });
      const viaJit = await compiled.query(undefined, contextFor(allowed), {});
      expect(JSON.stringify(viaJit.data)).toBe(JSON.stringify(viaJs.data));
      expect(viaJs.data).not.toBeNull();
      if (allowed) {
        expect(viaJs.errors).toBeUndefined();
        expect((viaJs.data as any).requirements.data[0]).toEqual({
          id: 'r1',
          title: 'T1',
          status: 'PENDING',
          priority: 'HIGH',
          framework: 'GDPR',
          frameworkInfo: { id: 'GDPR', name: 'GDPR', version: '2016/679' },
          findings: [{ id: 'f-r1', title: 'F', severity: 'HIGH', status: 'OPEN' }],
        });
      } else {
        // the permission check still runs per field: null with an error for each row
        expect(viaJs.errors?.length).toBe(2);
        expect(viaJit.errors?.length).toBe(2);
        expect((viaJs.data as any).requirements.data[0].findings).toBeNull();
      }
    }
  });
});

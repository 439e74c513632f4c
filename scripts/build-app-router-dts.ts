/**
 * Builds `clients/typescript/trpc/app-router.d.ts`: the tRPC `AppRouter` type as a client sees it,
 * self-contained. tsc's own declaration output of trpc/router.ts names the server's modules (domain
 * services, MikroORM, the context with its EntityManager), so importing it needs the server's
 * sources and node_modules. Here every procedure's input and output is written out structurally
 * (what travels as JSON: methods dropped, Dates kept for tRPC's own serialisation to turn into
 * strings), and the context is `object`. Only `@trpc/server`'s types are imported, which
 * `@trpc/client` depends on anyway.
 *
 * Run by `npm run codegen` (after the build); CI fails when the committed output is stale.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '../..');
const OUT = path.join(ROOT, 'clients/typescript/trpc/app-router.d.ts');
const ROUTER = path.join(ROOT, 'trpc/router.ts');

const ASYNC_ITERABLES = new Set(['AsyncIterable', 'AsyncIterableIterator', 'AsyncGenerator']);

function createChecker() {
  const configPath = path.join(ROOT, 'tsconfig.json');
  const { config } = ts.readConfigFile(configPath, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, ROOT);
  const program = ts.createProgram([ROUTER], { ...parsed.options, noEmit: true });
  const source = program.getSourceFile(ROUTER);
  if (!source) throw new Error(`cannot read ${ROUTER}`);
  return { checker: program.getTypeChecker(), source };
}

export function buildAppRouterDts(): string {
  const { checker, source } = createChecker();
  const moduleSymbol = checker.getSymbolAtLocation(source)!;
  const appRouter = checker.getExportsOfModule(moduleSymbol).find((s) => s.name === 'appRouter');
  if (!appRouter) throw new Error('trpc/router.ts exports no appRouter');
  const routerType = checker.getTypeOfSymbol(appRouter);

  const prop = (t: ts.Type, name: string) => {
    const p = t.getProperty(name);
    return p ? checker.getTypeOfSymbol(p) : undefined;
  };

  /** Prints a type as the JSON-shaped structure a client receives. */
  function print(t: ts.Type, indent: string, stack: ts.Type[]): string {
    const f = t.flags;
    if (f & ts.TypeFlags.Any) return 'any';
    if (f & ts.TypeFlags.Unknown) return 'unknown';
    if (f & ts.TypeFlags.Never) return 'never';
    if (f & ts.TypeFlags.Undefined) return 'undefined';
    if (f & ts.TypeFlags.Null) return 'null';
    if (f & ts.TypeFlags.Void) return 'void';
    if (f & ts.TypeFlags.StringLiteral) return JSON.stringify((t as ts.StringLiteralType).value);
    if (f & ts.TypeFlags.NumberLiteral) return String((t as ts.NumberLiteralType).value);
    if (f & ts.TypeFlags.BooleanLiteral) return checker.typeToString(t);
    if (f & (ts.TypeFlags.String | ts.TypeFlags.TemplateLiteral | ts.TypeFlags.StringMapping)) return 'string';
    if (f & ts.TypeFlags.Number) return 'number';
    if (f & ts.TypeFlags.Boolean) return 'boolean';
    if (f & ts.TypeFlags.BigInt) return 'bigint';
    if (f & ts.TypeFlags.ESSymbolLike) return 'symbol';
    if (f & ts.TypeFlags.TypeParameter) return 'unknown';
    if (f & ts.TypeFlags.NonPrimitive) return 'object';
    if (t.isUnion()) {
      const parts = [...new Set(t.types.map((m) => print(m, indent, stack)))];
      // `boolean` arrives as `false | true`.
      if (parts.includes('false') && parts.includes('true')) (parts.splice(parts.indexOf('false'), 1, 'boolean'), parts.splice(parts.indexOf('true'), 1));
      return parts.map((p) => (p.includes('=>') ? `(${p})` : p)).join(' | ');
    }
    if (t.isIntersection()) return t.types.map((m) => `(${print(m, indent, stack)})`).join(' & ');
    if (stack.includes(t)) return 'unknown'; // recursive: JSON has no cycles; the client gets what is there
    const name = t.getSymbol()?.getName();
    if (name === 'Date') return 'Date';
    if (name === 'Promise' || name === 'PromiseLike') return print(checker.getAwaitedType(t) ?? t, indent, stack);
    const next = [...stack, t];
    if (name && ASYNC_ITERABLES.has(name)) {
      const [item] = checker.getTypeArguments(t as ts.TypeReference);
      return `AsyncIterable<${item ? print(item, indent, next) : 'unknown'}>`;
    }
    if (checker.isTupleType(t))
      return `[${checker
        .getTypeArguments(t as ts.TypeReference)
        .map((a) => print(a, indent, next))
        .join(', ')}]`;
    if (checker.isArrayType(t)) {
      const [item] = checker.getTypeArguments(t as ts.TypeReference);
      const inner = print(item, indent, next);
      return /^[\w."]+$/.test(inner) ? `${inner}[]` : `Array<${inner}>`;
    }
    const members: string[] = [];
    const inner = `${indent}  `;
    const stringIndex = checker.getIndexInfoOfType(t, ts.IndexKind.String);
    if (stringIndex) members.push(`${inner}[key: string]: ${print(stringIndex.type, inner, next)};`);
    for (const p of checker.getPropertiesOfType(t)) {
      if (p.getName().startsWith('__@')) continue; // symbol-keyed
      const pt = checker.getTypeOfSymbol(p);
      if (pt.getCallSignatures().length && !pt.getProperties().length) continue; // methods do not travel
      const optional = (p.flags & ts.SymbolFlags.Optional) !== 0;
      const key = /^[A-Za-z_$][\w$]*$/.test(p.getName()) ? p.getName() : JSON.stringify(p.getName());
      const loose = (pt.flags & (ts.TypeFlags.Unknown | ts.TypeFlags.Any)) !== 0;
      const printed = print(optional && !loose ? checker.getNonNullableType(pt) : pt, inner, next);
      members.push(
        `${inner}${key}${optional ? '?' : ''}: ${printed}${optional && !loose && !printed.split(' | ').includes('undefined') ? ' | undefined' : ''};`,
      );
    }
    if (!members.length) return t.getCallSignatures().length ? 'unknown' : '{}';
    return `{\n${members.join('\n')}\n${indent}}`;
  }

  const KIND: Record<string, string> = { query: 'TRPCQueryProcedure', mutation: 'TRPCMutationProcedure', subscription: 'TRPCSubscriptionProcedure' };

  function printRecord(record: ts.Type, indent: string): string {
    const lines: string[] = [];
    const inner = `${indent}  `;
    for (const p of checker.getPropertiesOfType(record)) {
      const t = checker.getTypeOfSymbol(p);
      const def = prop(t, '_def');
      const kind = def && prop(def, 'type');
      if (def && kind && kind.isStringLiteral()) {
        const types = prop(def, '$types')!;
        const input = print(prop(types, 'input')!, `${inner}  `, []);
        const output = print(prop(types, 'output')!, `${inner}  `, []);
        lines.push(
          `${inner}${p.getName()}: ${KIND[kind.value]}<{\n${inner}  input: ${input};\n${inner}  output: ${output};\n${inner}  meta: object;\n${inner}}>;`,
        );
      } else {
        lines.push(`${inner}${p.getName()}: ${printRecord(t, inner)};`);
      }
    }
    return `{\n${lines.join('\n')}\n${indent}}`;
  }

  const def = prop(routerType, '_def')!;
  const record = prop(def, 'record')!;
  const rootTypes = prop(prop(def, '_config')!, '$types')!;
  const errorShape = print(prop(rootTypes, 'errorShape')!, '', []).replace(/code: number;/, 'code: TRPC_ERROR_CODE_NUMBER;');
  return `// Generated by \`npm run codegen\` (scripts/build-app-router-dts.ts) from trpc/router.ts; do not edit.
// The gateway's tRPC router type for clients: \`createTRPCClient<AppRouter>(…)\` from @trpc/client 11.
// Self-contained: it needs @trpc/server's types (a dependency of @trpc/client), not the server's sources.
import type { TRPCBuiltRouter, TRPCMutationProcedure, TRPCQueryProcedure, TRPCSubscriptionProcedure, TRPC_ERROR_CODE_NUMBER } from '@trpc/server';

/** The error shape every procedure answers with: \`data.domainCode\` is the gateway's error code. */
export type AppErrorShape = ${errorShape};

export type AppRouter = TRPCBuiltRouter<
  { ctx: object; meta: object; errorShape: AppErrorShape; transformer: false },
  ${printRecord(record, '  ')}
>;
`;
}

if (require.main === module) {
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(OUT, buildAppRouterDts());
  console.log(`wrote ${path.relative(process.cwd(), OUT)}`);
}

/**
 * A language-neutral model of the OpenAPI document's JSON schemas, for the clients written in
 * languages with nominal types (Go, Rust): every object schema of a request body, a query or a
 * success answer becomes a struct; structurally equal structs are one type, named after the
 * shortest place it appears (or a name from NAME_HINTS), and each operation names its own types
 * (`CreateRequirementRequest`, `GetRequirementResponse`, …) as aliases of the shared ones.
 */
import type { OperationInfo } from '../generate-clients';

type Json = any;

export type TypeRef =
  | { kind: 'string' | 'integer' | 'number' | 'boolean' | 'any' | 'object' }
  | { kind: 'array'; items: TypeRef }
  | { kind: 'map'; values: TypeRef }
  | { kind: 'struct'; id: number };

export interface Field {
  /** The JSON property name. */
  json: string;
  type: TypeRef;
  required: boolean;
  nullable: boolean;
  /** The closed set of string values, when the schema has one. */
  enumValues?: string[];
  description?: string;
}

export interface StructDef {
  id: number;
  /** The chosen type name (after `nameStructs`). */
  name: string;
  fields: Field[];
  /** Every name this shape would have had where it appears. */
  candidates: string[];
}

export interface QueryParam {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean';
  required: boolean;
  enumValues?: string[];
}

/** One operation's types: `undefined` where it has none (no body, a binary answer, …). */
export interface OperationTypes {
  op: OperationInfo;
  /** `<Op>Request`: the JSON body. */
  request?: { name: string; type: TypeRef };
  /** `<Op>Response`: the JSON success answer. */
  response?: { name: string; type: TypeRef };
  /** `<Op>Query`: the query parameters. */
  query?: { name: string; params: QueryParam[] };
}

export interface TypeModel {
  structs: StructDef[];
  operations: OperationTypes[];
  /** Aliases `name = target` for every operation-level name whose shape has another name. */
  aliases: { name: string; target: TypeRef; doc: string }[];
}

/**
 * Preferred names for shapes the domain names: the shape of the answer named on the left is called
 * by the name on the right wherever it appears (a requirement in a list is a `Requirement`).
 */
const NAME_HINTS: Record<string, string> = {
  GenerateSpeechRequest: 'GenerateSpeechRequest',
  GenerateSpeechRequestOptions: 'SpeechOptions',
  GetRequirementResponse: 'Requirement',
  ListRequirementsResponseDataItem: 'RequirementSummary',
  GetRequirementResponseTechnicalContext: 'TechnicalContext',
  GetRequirementResponseImplementation: 'Implementation',
  GetRequirementResponseValidation: 'RequirementValidation',
  ValidateRequirementResponse: 'ValidationResult',
  ListFindingsResponsePagination: 'Pagination',
  GetDashboardReportResponseRequestedBy: 'RequestedBy',
  GetFrameworkResponse: 'Framework',
  UpdateFindingResponse: 'Finding',
  GetComplianceReportResponse: 'Report',
  CreateWebhookResponse: 'WebhookWithSecret',
  GetAudioMetadataResponse: 'AudioMetadata',
  GetGenerationStatusResponse: 'GenerationStatus',
};

/** Words of `text` in lines of at most `width` characters. */
export function wrap(text: string, width = 96): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.replace(/\s+/g, ' ').trim().split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

export const pascal = (s: string) =>
  s.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : '')).replace(/^[a-z]/, (c) => c.toUpperCase());

class Builder {
  readonly structs: StructDef[] = [];
  private readonly bySignature = new Map<string, StructDef>();

  constructor(private readonly doc: Json) {}

  private resolve(schema: Json): Json {
    let s = schema;
    for (let guard = 0; s && typeof s === 'object' && typeof s.$ref === 'string'; guard++) {
      if (guard > 20) throw new Error(`$ref loop at ${schema.$ref}`);
      const parts = s.$ref.replace(/^#\//, '').split('/');
      s = parts.reduce((node: Json, key: string) => node?.[key], this.doc);
      if (!s) throw new Error(`unresolved $ref ${schema.$ref}`);
    }
    return s;
  }

  /** Variants of a schema, flattened through nested anyOf/oneOf, with whether `null` is one of them. */
  private variants(schema: Json): { variants: Json[]; nullable: boolean } {
    const s = this.resolve(schema ?? {});
    const alternatives = s.anyOf ?? s.oneOf;
    if (Array.isArray(alternatives)) {
      let nullable = false;
      const out: Json[] = [];
      for (const a of alternatives) {
        const inner = this.variants(a);
        nullable ||= inner.nullable;
        out.push(...inner.variants);
      }
      return { variants: out, nullable };
    }
    if (Array.isArray(s.allOf)) return { variants: [this.mergeAll(s.allOf)], nullable: false };
    if (Array.isArray(s.type)) {
      const types = s.type.filter((t: string) => t !== 'null');
      const nullable = types.length !== s.type.length;
      return { variants: types.map((t: string) => ({ ...s, type: t })), nullable };
    }
    if (s.type === 'null') return { variants: [], nullable: true };
    return { variants: [s], nullable: false };
  }

  private mergeAll(parts: Json[]): Json {
    const properties: Record<string, Json> = {};
    const required = new Set<string>();
    for (const p of parts.map((x) => this.resolve(x))) {
      for (const [k, v] of Object.entries<Json>(p.properties ?? {})) properties[k] = properties[k] ? { allOf: [properties[k], v] } : v;
      for (const r of p.required ?? []) required.add(r);
    }
    return { type: 'object', properties, required: [...required] };
  }

  private kindOf(s: Json): string {
    if (s.type) return String(s.type);
    if (s.properties || s.additionalProperties !== undefined) return 'object';
    if (s.items) return 'array';
    if (s.const !== undefined) return typeof s.const === 'number' ? (Number.isInteger(s.const) ? 'integer' : 'number') : typeof s.const;
    if (Array.isArray(s.enum) && s.enum.every((v: unknown) => typeof v === 'string')) return 'string';
    return 'any';
  }

  /** The type of a schema, and whether it admits null. `name` names a struct made from it. */
  typeOf(schema: Json, name: string): { type: TypeRef; nullable: boolean; enumValues?: string[] } {
    const { variants, nullable } = this.variants(schema);
    if (variants.length === 0) return { type: { kind: 'any' }, nullable: true };
    const kinds = [...new Set(variants.map((v) => this.kindOf(v)))];
    if (kinds.length !== 1) return { type: { kind: 'any' }, nullable };
    const kind = kinds[0];
    if (kind === 'object') {
      const withProps = variants.filter((v) => v.properties && Object.keys(v.properties).length);
      if (withProps.length === 0) {
        const ap = variants[0].additionalProperties;
        if (ap && typeof ap === 'object' && Object.keys(ap).length) {
          const inner = this.typeOf(ap, `${name}Value`);
          return { type: { kind: 'map', values: inner.nullable && inner.type.kind !== 'any' ? { kind: 'any' } : inner.type }, nullable };
        }
        return { type: { kind: 'object' }, nullable };
      }
      return { type: this.struct(variants, name), nullable };
    }
    if (kind === 'array') {
      const items = variants.map((v) => v.items ?? {});
      const inner = this.typeOf(items.length === 1 ? items[0] : { anyOf: items }, `${name}Item`);
      return { type: { kind: 'array', items: inner.nullable && inner.type.kind !== 'any' ? { kind: 'any' } : inner.type }, nullable };
    }
    if (kind === 'string' || kind === 'integer' || kind === 'number' || kind === 'boolean') {
      const values = variants.flatMap((v) => (Array.isArray(v.enum) ? v.enum : v.const !== undefined ? [v.const] : [null]));
      const enumValues = kind === 'string' && values.every((v) => typeof v === 'string') ? [...new Set(values as string[])] : undefined;
      return { type: { kind }, nullable, enumValues };
    }
    return { type: { kind: 'any' }, nullable };
  }

  /** One struct from object variants: a property required in every variant is required. */
  private struct(variants: Json[], name: string): TypeRef {
    const order: string[] = [];
    const schemas = new Map<string, Json[]>();
    for (const v of variants) {
      for (const [k, p] of Object.entries<Json>(v.properties ?? {})) {
        if (!schemas.has(k)) {
          schemas.set(k, []);
          order.push(k);
        }
        schemas.get(k)!.push(p);
      }
    }
    const fields: Field[] = order.map((json) => {
      const ps = schemas.get(json)!;
      const t = this.typeOf(ps.length === 1 ? ps[0] : { anyOf: ps }, `${name}${pascal(json)}`);
      const required = variants.every((v) => (v.required ?? []).includes(json));
      const description = ps.map((p) => this.resolve(p).description).find((d) => typeof d === 'string');
      return { json, type: t.type, required, nullable: t.nullable, enumValues: t.enumValues, description };
    });
    const signature = JSON.stringify(fields.map((f) => [f.json, f.type, f.required, f.nullable, f.enumValues ?? null]));
    let def = this.bySignature.get(signature);
    if (!def) {
      def = { id: this.structs.length, name: '', fields, candidates: [] };
      this.structs.push(def);
      this.bySignature.set(signature, def);
    }
    def.candidates.push(name);
    return { kind: 'struct', id: def.id };
  }

  /** Picks each struct's name: a hinted name, else its shortest candidate (then the first alphabetically). */
  nameStructs(reserved: ReadonlySet<string>) {
    const taken = new Set<string>();
    for (const def of this.structs) {
      const hinted = def.candidates.map((c) => NAME_HINTS[c]).find(Boolean);
      const sorted = [...new Set(def.candidates)].sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
      def.name = hinted ?? sorted[0];
      if (taken.has(def.name) || reserved.has(def.name)) throw new Error(`generated type name ${def.name} is taken`);
      taken.add(def.name);
    }
  }
}

function successSchema(op: Json): Json | undefined {
  const schemas = Object.entries<Json>(op.responses ?? {})
    .filter(([status]) => /^2/.test(status))
    .map(([, r]) => r.content?.['application/json']?.schema)
    .filter(Boolean);
  if (schemas.length === 0) return undefined;
  return schemas.length === 1 ? schemas[0] : { anyOf: schemas };
}

/** The model of every operation's body, query and JSON answer. */
export function buildTypeModel(doc: Json, ops: OperationInfo[], reserved: ReadonlySet<string> = new Set()): TypeModel {
  const b = new Builder(doc);
  const operations: OperationTypes[] = [];
  for (const op of ops) {
    const node = doc.paths[op.path][op.method.toLowerCase()];
    const base = pascal(op.id);
    const types: OperationTypes = { op };
    if (op.body === 'json') {
      const schema = node.requestBody?.content?.['application/json']?.schema ?? {};
      types.request = { name: `${base}Request`, type: b.typeOf(schema, `${base}Request`).type };
    }
    if (op.response === 'json') {
      const schema = successSchema(node);
      if (schema) types.response = { name: `${base}Response`, type: b.typeOf(schema, `${base}Response`).type };
    }
    const params: Json[] = [...(doc.paths[op.path].parameters ?? []), ...(node.parameters ?? [])].filter((p) => p.in === 'query');
    if (params.length) {
      types.query = {
        name: `${base}Query`,
        params: params.map((p) => {
          const t = b.typeOf(p.schema ?? {}, `${base}Query${pascal(p.name)}`);
          const kind = t.type.kind;
          if (kind !== 'string' && kind !== 'integer' && kind !== 'number' && kind !== 'boolean')
            throw new Error(`query parameter ${op.id}.${p.name} is not a scalar`);
          return { name: String(p.name), type: kind, required: p.required === true, enumValues: t.enumValues };
        }),
      };
    }
    operations.push(types);
  }
  b.nameStructs(reserved);
  const aliases: TypeModel['aliases'] = [];
  for (const t of operations) {
    for (const [which, entry] of [
      ['body', t.request],
      ['answer', t.response],
    ] as const) {
      if (!entry) continue;
      const named = entry.type.kind === 'struct' ? b.structs[entry.type.id].name : undefined;
      if (named === entry.name) continue;
      aliases.push({ name: entry.name, target: entry.type, doc: `the ${which} of ${t.op.id} (${t.op.method} ${t.op.path})` });
    }
  }
  return { structs: b.structs, operations, aliases };
}

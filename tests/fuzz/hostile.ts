import http from 'node:http';
import fc from 'fast-check';
import type { z } from 'zod';
import type { Envelope, RouteSpec } from '../../rest-adapter/route';

/** Raw HTTP: fetch refuses some of what an attacker sends (odd paths, bodies on any method), node:http does not. */
export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

export function rawRequest(
  baseUrl: string,
  opts: { method: string; path: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<RawResponse> {
  const u = new URL(baseUrl);
  // node:http sends DELETE bodies without framing unless told the length.
  const headers = opts.body === undefined ? opts.headers : { ...opts.headers, 'content-length': String(Buffer.byteLength(opts.body)) };
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, method: opts.method.toUpperCase(), path: opts.path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error(`timeout: ${opts.method} ${opts.path.slice(0, 200)}`)));
    if (opts.body !== undefined) req.end(opts.body);
    else req.end();
  });
}

export function closeAgent() {
  agent.destroy();
}

// --- hostile values ---------------------------------------------------------------------------

/** `depth` levels of arrays or objects, built iteratively (a recursive builder would be the thing under test). */
export function deeplyNested(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array' ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

const trickyStrings = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uD800',
  'x\uDFFFy',
  '😀👩‍👩‍👧‍👦🏳️‍🌈',
  '\u202Eevil',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e999',
  '1e308',
  '-0',
  '0x1F',
  'null',
  'true',
  '__proto__',
  'constructor',
  "'; drop table api_keys; --",
  '<script>alert(1)</script>',
  '../../../../etc/passwd',
  '%00',
  '${jndi:ldap://x}',
  '{{7*7}}',
);

const hugeString = fc.constantFrom(100_001, 150_000, 400_000).chain((n) => fc.constantFrom('a'.repeat(n), 'é'.repeat(n), '😀'.repeat(Math.ceil(n / 2))));

const oddNumbers = fc.oneof(
  fc.constantFrom(1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, -0, 5e-324, 0.1, 2 ** 53, -1, 0, 1e21),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

/** A value of any JSON type, biased towards the ones that break parsers and validators. */
export const wildValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: trickyStrings },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
  { weight: 3, arbitrary: oddNumbers },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.array(trickyStrings, { maxLength: 200 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 8 }) },
);

type Def = { type: string; [k: string]: any };
const defOf = (s: z.ZodType): Def => (s as any)._zod.def;

/**
 * Values shaped by a route's own zod schema (right keys, plausible values) mixed with wild ones at
 * every level: generic, so a route added to the table is fuzzed without anyone writing a generator.
 */
export function arbitraryFor(schema: z.ZodType | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 6) return wildValue;
  const def = defOf(schema);
  let plausible: fc.Arbitrary<unknown>;
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'readonly':
    case 'catch':
      return arbitraryFor(def.innerType, depth);
    case 'pipe':
      return arbitraryFor(def.in, depth);
    case 'object': {
      const shape = def.shape as Record<string, z.ZodType>;
      const fields = Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, arbitraryFor(v, depth + 1)]));
      plausible = fc.record(fields, { requiredKeys: [] });
      break;
    }
    case 'array':
      plausible = fc.array(arbitraryFor(def.element, depth + 1), { maxLength: 5 });
      break;
    case 'enum':
      plausible = fc.constantFrom(...Object.values(def.entries as Record<string, unknown>));
      break;
    case 'literal':
      plausible = fc.constantFrom(...(def.values as unknown[]));
      break;
    case 'string':
      plausible = fc.oneof(fc.string({ maxLength: 40 }), trickyStrings);
      break;
    case 'number':
    case 'int':
      plausible = oddNumbers;
      break;
    case 'boolean':
      plausible = fc.boolean();
      break;
    case 'union':
      plausible = fc.oneof(...(def.options as z.ZodType[]).map((o) => arbitraryFor(o, depth + 1)));
      break;
    default:
      plausible = wildValue;
  }
  return fc.oneof({ weight: 4, arbitrary: plausible }, { weight: 1, arbitrary: wildValue });
}

/** A request body as bytes on the wire: schema-shaped JSON, wild JSON, deep nesting, huge, or not JSON at all. */
export function bodyArbitrary(route: RouteSpec): fc.Arbitrary<string | Buffer> {
  return fc.oneof(
    { weight: 6, arbitrary: arbitraryFor(route.request?.body).map((v) => JSON.stringify(v) ?? 'null') },
    { weight: 2, arbitrary: wildValue.map((v) => JSON.stringify(v) ?? 'null') },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(5000, 20_000)
        .chain((d) => fc.constantFrom(deeplyNested(d, 'array'), deeplyNested(d, 'object'), `{"text":${deeplyNested(d, 'array')}}`)),
    },
    { weight: 1, arbitrary: hugeString.map((s) => JSON.stringify({ text: s })) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '{',
        '{"text":',
        '[1,]',
        '{"a":1}}',
        'undefined',
        "{'text':'x'}",
        '\u0000',
        '{"text":"\\ud800"}',
        '{"__proto__":{"admin":true}}',
        '{"constructor":{"prototype":{"x":1}}}',
      ),
    },
    { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 300 }).map((b) => Buffer.from(b)) },
    { weight: 1, arbitrary: fc.constant(Buffer.from([0x7b, 0x22, 0x74, 0x65, 0x78, 0x74, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0xff, 0xfe, 0x22, 0x7d])) },
  );
}

/** Percent-encodes every byte: lets lone surrogates and arbitrary non-UTF-8 bytes into a path. */
const percentBytes = (bytes: Uint8Array) => Array.from(bytes, (b) => '%' + b.toString(16).toUpperCase().padStart(2, '0')).join('');
const encodeSegment = (s: string) => percentBytes(Buffer.from(s, 'utf8'));

export const pathSegment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '%00',
    '..%2f..%2fetc%2fpasswd',
    '..',
    '.',
    '%2e%2e',
    '%C3%28',
    '%FF',
    '%E0%80%AF',
    '%',
    '%zz',
    '%u0041',
    'a'.repeat(5000),
    'a'.repeat(20_000),
    'A'.repeat(64),
    '0'.repeat(64),
    'f'.repeat(63) + 'g',
    'null',
    '-1',
    '1e308',
    'NaN',
  ),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 80 }).map(encodeSegment),
  fc.uint8Array({ minLength: 1, maxLength: 40 }).map(percentBytes),
  fc.stringMatching(/^[A-Za-z0-9_-]{1,80}$/),
);

export const queryString: fc.Arbitrary<string> = fc.oneof(
  fc.constant(''),
  fc
    .array(
      fc.tuple(
        fc.oneof(
          fc.constantFrom('limit', 'offset', 'provider', 'framework', 'status', 'format', 'q', 'sort', '__proto__', 'limit[]'),
          fc.string({ maxLength: 8 }).map(encodeSegment),
        ),
        fc.oneof(pathSegment, fc.constantFrom('100000', '-1', '1e308', 'NaN', '', '0', '50', 'mock', 'provider_a')),
      ),
      { maxLength: 6 },
    )
    .map((pairs) => '?' + pairs.map(([k, v]) => `${k}=${v}`).join('&')),
  fc.constantFrom('?limit=1&limit=2', '?%FF=%FF', '?a[b][c][d]=1', '?' + 'a=1&'.repeat(2000), '?=&=&', '?provider=%00'),
);

const ADMIN = 'test-admin-key-0123456789abcdef';
export const authorizationHeader: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 6, arbitrary: fc.constant(`Bearer ${ADMIN}`) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      undefined,
      '',
      'Bearer',
      'Bearer ',
      'bearer ' + ADMIN,
      'Basic dXNlcjpwYXNz',
      `Bearer ${ADMIN} extra`,
      'Bearer ' + 'x'.repeat(8000),
      'Bearer \u00ff\u00fe',
      'Bearer sk_' + 'A'.repeat(32),
      'Bearer null',
      'Token abc',
      `Bearer ${ADMIN},Bearer x`,
    ),
  },
);

export const contentTypeHeader: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      undefined,
      'text/plain',
      'application/json; charset=utf-16',
      'application/json; charset=bogus',
      'application/json; charset=latin1',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/vnd.api+json',
      'application/json;;;',
      '*/*',
      'application/xml',
      'json',
    ),
  },
);

export const rangeHeader: fc.Arbitrary<string | undefined> = fc.constantFrom(
  undefined,
  undefined,
  'bytes=0-',
  'bytes=-0',
  'bytes=0-0',
  'bytes=999999999999-',
  'bytes=a-b',
  'items=0-1',
  'bytes=0-1,2-3',
  'bytes=-99999999999999999999',
  'bytes=' + '0-1,'.repeat(500),
);

export function headersFor(auth: string | undefined, contentType: string | undefined, range: string | undefined, extra: Record<string, string> = {}) {
  const h: Record<string, string> = { ...extra };
  if (auth !== undefined) h.authorization = auth;
  if (contentType !== undefined) h['content-type'] = contentType;
  if (range !== undefined) h.range = range;
  return h;
}

/** Fills `{param}` slots of an OpenAPI template. */
export const fillPath = (template: string, segment: (name: string) => string) => template.replace(/\{(\w+)\}/g, (_m, name: string) => segment(name));

// --- what every answer must satisfy ------------------------------------------------------------

/** Signs of internals leaking: stack frames, module paths, SQL, ORM names. */
const LEAKS: [string, RegExp][] = [
  ['stack frame', /\bat (?:async )?[\w$.<>[\] ]+ \([^)]*:\d+:\d+\)|\bat [^\s()]+\.[jt]s:\d+:\d+/],
  ['node_modules path', /node_modules/],
  ['SQL', /\b(?:select|insert into|update|delete from)\s+[\s\S]{0,80}\b(?:from|values|set|where)\b/i],
  ['knex', /knex/i],
  ['MikroORM', /MikroORM|mikro-orm/i],
];

export function leakIn(body: string): string | null {
  for (const [what, re] of LEAKS) {
    const m = re.exec(body);
    if (m) return `${what}: ${body.slice(Math.max(0, m.index - 80), m.index + 120)}`;
  }
  return null;
}

/** 5xx the contracts document for this setup (a real provider without credentials). */
const DOCUMENTED_5XX = new Set(['PROVIDER_NOT_CONFIGURED']);

/** Problems with one answer, or [] when it is an acceptable answer to hostile input. */
export function problemsWith(envelope: Envelope, res: RawResponse): string[] {
  const problems: string[] = [];
  const isJson = /json/.test(String(res.headers['content-type'] ?? ''));
  let body: any;
  if (isJson && res.body.length) {
    try {
      body = JSON.parse(res.body);
    } catch {
      problems.push('content-type says JSON but the body does not parse');
    }
  }
  if (res.status >= 500) {
    const code = body?.error?.code;
    if (!(res.status === 500 && DOCUMENTED_5XX.has(code))) problems.push(`status ${res.status} ${res.body.slice(0, 300)}`);
  }
  if (res.status >= 400 && res.status < 500 && body !== undefined) problems.push(...envelopeProblems(envelope, body));
  if (/text|json|html/.test(String(res.headers['content-type'] ?? ''))) {
    const leak = leakIn(res.body);
    if (leak) problems.push(`leak (${leak})`);
  }
  return problems;
}

export function envelopeProblems(envelope: Envelope, body: any): string[] {
  const e = body?.error;
  if (!e || typeof e !== 'object') return [`no error object: ${JSON.stringify(body).slice(0, 200)}`];
  const out: string[] = [];
  if (typeof e.code !== 'string' || !e.code) out.push('error.code missing');
  if (typeof e.message !== 'string' || !e.message) out.push('error.message missing');
  if (envelope === 'integration') {
    const wantObject = e.code === 'INVALID_FRAMEWORK';
    if (wantObject ? typeof e.details !== 'object' || Array.isArray(e.details) || e.details === null : !Array.isArray(e.details))
      out.push(`integration details has the wrong form: ${JSON.stringify(e.details)}`);
    if (typeof e.requestId !== 'string') out.push('integration requestId missing');
  }
  if (envelope === 'openai') {
    if (typeof e.type !== 'string' || !e.type) out.push('openai error.type missing');
    if (!('param' in e) || (e.param !== null && typeof e.param !== 'string')) out.push('openai error.param must be a string or null');
  }
  if (envelope === 'dashboard' && (typeof e.details !== 'object' || e.details === null || Array.isArray(e.details)))
    out.push('dashboard details must be an object');
  return out.map((p) => `${envelope} envelope: ${p} in ${JSON.stringify(body).slice(0, 200)}`);
}

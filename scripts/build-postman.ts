/**
 * Builds `clients/postman/speech-compliance-gateway.postman_collection.json` from the OpenAPI
 * document (clients/openapi.json, as `/api/openapi.json` serves it) with Postman's own converter
 * (openapi-to-postmanv2), then makes the result runnable as it is and reproducible:
 *
 * - collection variables `baseUrl` and `apiKey` (bearer auth for the whole collection; health
 *   requests go without a key), and ids captured from the answers that create them
 *   (`requirementId`, `findingId`, `reportId`, `hash`, …) for the requests that need them;
 * - the documented example as each request's body (not the converter's `<string>` placeholders);
 * - a test script on every request: the status is the documented success (or, for the few
 *   operations whose success depends on the moment or the network, another documented status),
 *   and a JSON answer has the documented shape for that status (`pm.response.to.have.jsonSchema`);
 * - ids derived from the request's place (no random UUIDs) and no example answers (the converter
 *   fakes them with random values), so the output only changes when the contract does.
 *
 * Run by `npm run codegen` after generate-clients; CI fails when the committed output is stale.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

type Json = any; // the converter's output and the OpenAPI document are plain JSON walked by key

const ROOT = path.resolve(__dirname, '../..');
export const POSTMAN_OUT = path.join(ROOT, 'clients/postman/speech-compliance-gateway.postman_collection.json');

/** Which collection variable an answer's `id` (or `hash`) fills, by operation. */
const CAPTURE: Record<string, { variable: string; field: string }> = {
  generateSpeech: { variable: 'hash', field: 'hash' },
  createApiKey: { variable: 'apiKeyId', field: 'id' },
  createRequirement: { variable: 'requirementId', field: 'id' },
  shortCreateRequirement: { variable: 'shortRequirementId', field: 'id' },
  createFinding: { variable: 'findingId', field: 'id' },
  requestComplianceReport: { variable: 'reportId', field: 'reportId' },
  requestDashboardReport: { variable: 'dashboardReportId', field: 'reportId' },
  createWebhook: { variable: 'webhookId', field: 'id' },
};

/** The variable a path parameter takes, by `<path>#<name>` first, then by name. */
function pathVariable(apiPath: string, name: string): string {
  if (name === 'hash') return '{{hash}}';
  if (name === 'index') return '0';
  if (name === 'framework') return 'soc2';
  if (name === 'reportId') return apiPath.startsWith('/v1/dashboard') ? '{{dashboardReportId}}' : '{{reportId}}';
  if (apiPath.startsWith('/api/requirements/')) return '{{shortRequirementId}}';
  if (apiPath.startsWith('/v1/requirements/') || apiPath.startsWith('/api/validate/')) return '{{requirementId}}';
  if (apiPath.startsWith('/v1/audits/findings/')) return '{{findingId}}';
  if (apiPath.startsWith('/v1/auth/api-keys/')) return '{{apiKeyId}}';
  if (apiPath.startsWith('/v1/frameworks/')) return 'soc2';
  if (apiPath.startsWith('/v1/webhooks/')) return '{{webhookId}}';
  return `{{${name}}}`;
}

/** Bodies for operations the document gives no example for. */
const BODIES: Record<string, unknown> = {
  shortValidate: { title: 'Audit trail for record changes', framework: 'fda21cfr11', priority: 'high' },
  signComplianceReport: { meaning: 'approved' },
  createWebhook: { url: 'https://hooks.example.com/gateway', events: ['requirement.created'] },
};

/**
 * Statuses besides the documented success that a run against a fresh gateway may rightly get:
 * a report still being generated, a webhook target the SSRF guard cannot resolve on a machine
 * without DNS, a report signature before the file exists. Each is a documented answer.
 */
const ALSO_ACCEPTED: Record<string, number[]> = {
  downloadComplianceReport: [409],
  downloadDashboardReport: [409],
  verifyComplianceReport: [409],
  signComplianceReport: [400, 409],
  // Registration needs a public https target; on a loopback-only machine the guard cannot resolve
  // one (400), and then `webhookId` keeps its placeholder: the id-taking requests answer 404.
  createWebhook: [400],
  listWebhookDeliveries: [404],
  deleteWebhook: [404],
  // Chunks exist while (and shortly after) a progressive stream makes the audio.
  getAudioChunk: [404],
};

/** A deterministic UUID-shaped id from a place in the collection. */
function stableId(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Resolves `$ref`s into components (the sandbox validates one schema at a time). */
function inline(doc: Json, schema: Json, depth = 0): Json {
  if (depth > 20 || schema === null || typeof schema !== 'object') return schema;
  if (Array.isArray(schema)) return schema.map((s) => inline(doc, s, depth + 1));
  if (typeof schema.$ref === 'string') {
    const target = schema.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce((o: Json, k: string) => o?.[k], doc);
    const { $ref: _ref, ...rest } = schema;
    return inline(doc, { ...target, ...rest }, depth + 1);
  }
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, inline(doc, v, depth + 1)]));
}

interface Operation {
  method: string;
  path: string;
  op: Json;
}

function operationsOf(doc: Json): Map<string, Operation> {
  const ops = new Map<string, Operation>();
  for (const [p, methods] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(methods)) ops.set(`${method.toUpperCase()} ${p}`, { method, path: p, op });
  }
  return ops;
}

/** The test script of one request: documented status, documented shape, captured id. */
function testScript(doc: Json, o: Operation): string[] {
  const responses: Json = o.op.responses;
  const success = Object.keys(responses)
    .filter((s) => /^[23]\d\d$/.test(s))
    .map(Number);
  const accepted = [...success, ...(ALSO_ACCEPTED[o.op.operationId] ?? [])];
  const shapes: Record<string, Json> = {};
  for (const status of accepted) {
    const schema = responses[String(status)]?.content?.['application/json']?.schema;
    if (schema) shapes[String(status)] = inline(doc, schema);
  }
  const lines = [
    `// Generated by \`npm run codegen\` (scripts/build-postman.ts): ${o.op.operationId}`,
    `const accepted = ${JSON.stringify(accepted)};`,
    `const shapes = ${JSON.stringify(shapes)};`,
    `pm.test('status is documented (${accepted.join(', ')})', function () { pm.expect(pm.response.code).to.be.oneOf(accepted); });`,
    `const media = pm.response.headers.get('Content-Type') || '';`,
    `if (shapes[pm.response.code] && media.indexOf('application/json') === 0) {`,
    `  pm.test('body has the documented shape', function () { pm.response.to.have.jsonSchema(shapes[pm.response.code]); });`,
    `}`,
  ];
  const capture = CAPTURE[o.op.operationId];
  if (capture) {
    lines.push(
      `if (pm.response.code < 300 && media.indexOf('application/json') === 0) {`,
      `  const value = pm.response.json()[${JSON.stringify(capture.field)}];`,
      `  if (value) pm.collectionVariables.set(${JSON.stringify(capture.variable)}, value);`,
      `}`,
    );
  }
  return lines;
}

/** The converted request, made runnable: variables for path parameters, a real body, the key. */
function fixRequest(doc: Json, item: Json, o: Operation) {
  const req = item.request;
  delete req.auth; // inherits the collection's bearer {{apiKey}}
  if (Array.isArray(o.op.security) && o.op.security.length === 0) req.auth = { type: 'noauth' };
  for (const v of req.url.variable ?? []) {
    v.value = pathVariable(o.path, v.key);
    delete v.type;
  }
  // Optional query parameters stay in the request, disabled, with their description.
  for (const q of req.url.query ?? []) {
    const param = (o.op.parameters ?? []).find((p: Json) => p.in === 'query' && p.name === q.key);
    if (!param?.required) q.disabled = true;
    if (typeof q.value === 'string' && q.value.startsWith('<')) q.value = '';
    if (param?.required) q.value = q.key === 'framework' ? 'soc2' : (param.schema?.enum?.[0] ?? q.value);
  }
  const content = o.op.requestBody?.content;
  if (content?.['application/json']) {
    const example = content['application/json'].example ?? BODIES[o.op.operationId] ?? {};
    req.body = { mode: 'raw', raw: JSON.stringify(example, null, 2), options: { raw: { language: 'json' } } };
  } else if (content) {
    // A raw upload (report verification): a few bytes that are not the report, answered valid: false.
    req.header = (req.header ?? []).filter((h: Json) => h.key.toLowerCase() !== 'content-type');
    req.header.push({ key: 'Content-Type', value: 'application/octet-stream' });
    req.body = { mode: 'raw', raw: 'not the report file' };
  }
  item.response = [];
  item.event = [{ listen: 'test', script: { type: 'text/javascript', exec: testScript(doc, o) } }];
}

/** Deletes run last, after every request that needs what they delete. */
function isCleanup(o: Operation): boolean {
  return o.method === 'delete';
}

export async function buildPostmanCollection(doc: Json): Promise<Json> {
  // openapi-to-postmanv2 is CommonJS with a callback API.
  const converter: { convert(input: unknown, options: unknown, cb: (err: unknown, res: Json) => void): void } = require('openapi-to-postmanv2');
  const converted: Json = await new Promise((resolve, reject) =>
    converter.convert(
      { type: 'json', data: JSON.parse(JSON.stringify(doc)) },
      { folderStrategy: 'Tags', parametersResolution: 'Example', includeAuthInfoInExample: false },
      (err, res) => (err ? reject(err) : res.result ? resolve(res.output[0].data) : reject(new Error(res.reason))),
    ),
  );
  const ops = operationsOf(doc);
  const cleanup: Json[] = [];
  const folders: Json[] = [];
  for (const folder of converted.item as Json[]) {
    const kept: Json[] = [];
    for (const item of (folder.item ?? [folder]) as Json[]) {
      const url = `/${(item.request.url.path as string[]).map((s) => (s.startsWith(':') ? `{${s.slice(1)}}` : s)).join('/')}`;
      const o = ops.get(`${item.request.method} ${url}`);
      if (!o) throw new Error(`converted request without an operation: ${item.request.method} ${url}`);
      item.name = o.op.operationId;
      item.request.description = o.op.summary;
      delete item.request.name;
      fixRequest(doc, item, o);
      (isCleanup(o) ? cleanup : kept).push(item);
    }
    if (kept.length) folders.push({ name: folder.name, description: folder.description, item: kept });
  }
  folders.push({ name: 'clean-up', description: 'Deletes, after every request that reads what they delete', item: cleanup });
  // Stable ids: from the folder and the operation.
  for (const folder of folders) {
    folder.id = stableId(`folder:${folder.name}`);
    for (const item of folder.item) item.id = stableId(`request:${item.name}`);
  }
  return {
    info: {
      _postman_id: stableId(`collection:${doc.info.title}`),
      name: doc.info.title,
      description: `${doc.info.description}\n\nGenerated from /api/openapi.json (version ${doc.info.version}) by \`npm run codegen\`. Set \`baseUrl\` (e.g. http://localhost:3000) and \`apiKey\`, then run the collection in order: requests that create things store their ids in collection variables for the ones that follow.`,
      schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json',
    },
    auth: { type: 'bearer', bearer: [{ key: 'token', value: '{{apiKey}}', type: 'string' }] },
    variable: [
      { key: 'baseUrl', value: 'http://localhost:3000', type: 'string' },
      { key: 'apiKey', value: '', type: 'string' },
      ...['hash', 'apiKeyId', 'requirementId', 'shortRequirementId', 'findingId', 'reportId', 'dashboardReportId'].map((key) => ({
        key,
        value: '',
        type: 'string',
      })),
      { key: 'webhookId', value: 'wh_not_registered', type: 'string' },
    ],
    item: folders,
  };
}

async function main() {
  const doc = JSON.parse(fs.readFileSync(path.join(ROOT, 'clients/openapi.json'), 'utf8'));
  const collection = await buildPostmanCollection(doc);
  fs.mkdirSync(path.dirname(POSTMAN_OUT), { recursive: true });
  fs.writeFileSync(POSTMAN_OUT, `${JSON.stringify(collection, null, 2)}\n`);
  console.log(`wrote ${path.relative(process.cwd(), POSTMAN_OUT)}`);
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}

import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import { buildOpenApi } from '../../rest-adapter/openapi';
import { ROUTE_TABLE } from '../../rest-adapter/route-table';

/**
 * Checks an answer of the gateway against the OpenAPI document it publishes: the status must be
 * one the operation declares, and a JSON body must match the schema declared for that status.
 * The test client runs every REST answer of the e2e suites through it, so the document cannot say
 * one thing while the gateway does another.
 */
type Operation = { method: string; template: string; pattern: RegExp; responses: Record<string, any> };

let operations: Operation[] | undefined;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const compiled = new Map<object, ValidateFunction>();

function load(): Operation[] {
  if (operations) return operations;
  const doc = buildOpenApi(ROUTE_TABLE) as any;
  const components = doc.components.schemas;
  const ops: Operation[] = [];
  for (const [template, methods] of Object.entries<any>(doc.paths)) {
    const pattern = new RegExp('^' + template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\\{\w+\\\}|\{\w+\}/g, '[^/]+') + '$');
    for (const [method, op] of Object.entries<any>(methods)) {
      const responses: Record<string, any> = {};
      for (const [status, r] of Object.entries<any>(op.responses)) {
        const json = r.content?.['application/json']?.schema;
        const ref = json?.$ref as string | undefined;
        responses[status] = { ...r, jsonSchema: ref ? components[ref.split('/').pop()!] : json };
      }
      ops.push({ method, template, pattern, responses });
    }
  }
  // Literal segments before parameters: `/v1/requirements/batch` is not `/v1/requirements/{id}`.
  ops.sort((a, b) => Number(a.template.includes('{')) - Number(b.template.includes('{')));
  return (operations = ops);
}

export class ContractViolation extends Error {}

/** Throws a ContractViolation naming the operation and the mismatch; returns quietly otherwise. */
export function checkAnswer(method: string, pathname: string, status: number, contentType: string | null, body: unknown): void {
  const path = pathname.split('?')[0];
  const op = load().find((o) => o.method === method.toLowerCase() && o.pattern.test(path));
  if (!op) return; // not a documented REST path (GraphQL, tRPC, docs, metrics)
  const declared = op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`];
  if (!declared) {
    throw new ContractViolation(
      `${method.toUpperCase()} ${op.template} answered ${status}, which the document does not declare (it declares ${Object.keys(op.responses).join(', ')})`,
    );
  }
  const media = (contentType ?? '').split(';')[0].trim();
  if (method.toLowerCase() === 'head' || status === 204 || status === 304) return;
  if (declared.content && media && !declared.content[media]) {
    throw new ContractViolation(
      `${method.toUpperCase()} ${op.template} ${status} answered ${media}; the document declares ${Object.keys(declared.content).join(', ')}`,
    );
  }
  if (!declared.content && media) {
    throw new ContractViolation(`${method.toUpperCase()} ${op.template} ${status} answered a ${media} body; the document declares none`);
  }
  if (media !== 'application/json' || !declared.jsonSchema) return;
  let validate = compiled.get(declared.jsonSchema);
  if (!validate) compiled.set(declared.jsonSchema, (validate = ajv.compile(declared.jsonSchema)));
  if (!validate(body)) {
    const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '(body)'} ${e.message}`);
    throw new ContractViolation(`${method.toUpperCase()} ${op.template} ${status}: the body does not match the document: ${errors.join('; ')}`);
  }
}

/**
 * The drift check: every operation of the OpenAPI document (operationId, method and path) must be
 * in each client's operation table and have a method of its own in that client's sources, and no
 * table may list an operation the document lacks. Reads the files as they are on disk, generated or
 * written by hand alike, so a method deleted, renamed or left out by an edit is caught.
 */
import fs from 'node:fs';
import path from 'node:path';

type Json = any;

interface DocOperation {
  id: string;
  method: string;
  path: string;
}

const snake = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
const pascal = (s: string) => s[0].toUpperCase() + s.slice(1);
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

interface ClientShape {
  name: string;
  /** Source folder (relative to the repository) and which files in it count. */
  dir: string;
  files: (file: string) => boolean;
  /** The operation table's entry for an operation. */
  tableEntry: (op: DocOperation) => RegExp;
  /** Any table entry, capturing the operationId (to find entries the document lacks). */
  anyEntry: RegExp;
  /** The operation's method definition. */
  method: (op: DocOperation) => RegExp;
}

const CLIENTS: ClientShape[] = [
  {
    name: 'typescript',
    dir: 'clients/typescript/src',
    files: (f) => f.endsWith('.ts') && !f.endsWith('.d.ts'),
    tableEntry: (op) => new RegExp(`^\\s+${escape(op.id)}: \\{ method: '${op.method}', path: '${escape(op.path)}'`, 'm'),
    anyEntry: /^\s+(\w+): \{ method: '[A-Z]+', path: '/gm,
    method: (op) => new RegExp(`^\\s+(?:async\\s+)?${escape(op.id)}\\(`, 'm'),
  },
  {
    name: 'python',
    dir: 'clients/python/speech_gateway',
    files: (f) => f.endsWith('.py'),
    tableEntry: (op) => new RegExp(`^\\s+"${escape(op.id)}": \\("${op.method}", "${escape(op.path)}"`, 'm'),
    anyEntry: /^\s+"(\w+)": \("[A-Z]+", "\//gm,
    method: (op) => new RegExp(`^\\s+def ${snake(op.id)}\\(self\\b`, 'm'),
  },
  {
    name: 'go',
    dir: 'clients/go',
    files: (f) => f.endsWith('.go') && !f.endsWith('_test.go') && !f.includes(`${path.sep}cmd${path.sep}`) && !f.includes(`${path.sep}internal${path.sep}`),
    tableEntry: (op) => new RegExp(`^\\s+\\{ID: "${escape(op.id)}", Method: "${op.method}", Path: "${escape(op.path)}"`, 'm'),
    anyEntry: /^\s+\{ID: "(\w+)", Method: "/gm,
    method: (op) => new RegExp(`^func \\(c \\*Client\\) ${pascal(op.id)}\\(ctx context\\.Context\\b`, 'm'),
  },
  {
    name: 'rust',
    dir: 'clients/rust/src',
    files: (f) => f.endsWith('.rs') && !f.includes(`${path.sep}bin${path.sep}`),
    tableEntry: (op) => new RegExp(`Operation \\{ id: "${escape(op.id)}", method: "${op.method}", path: "${escape(op.path)}"`),
    anyEntry: /Operation \{ id: "(\w+)", method: "/g,
    method: (op) => new RegExp(`^\\s+pub fn ${snake(op.id)}\\(&self\\b`, 'm'),
  },
];

export function documentOperations(doc: Json): DocOperation[] {
  const ops: DocOperation[] = [];
  for (const [p, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<Json>(item)) {
      if (op && typeof op === 'object' && typeof op.operationId === 'string') ops.push({ id: op.operationId, method: method.toUpperCase(), path: p });
    }
  }
  return ops;
}

function sources(root: string, dir: string, keep: (file: string) => boolean): string {
  const out: string[] = [];
  const walk = (d: string) => {
    if (!fs.existsSync(d)) return;
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'target' && entry.name !== 'dist' && entry.name !== '__pycache__') walk(full);
      } else if (keep(full)) out.push(fs.readFileSync(full, 'utf8'));
    }
  };
  walk(path.join(root, dir));
  return out.join('\n');
}

/** Problems found, one line each; empty when every client covers the document exactly. */
export function checkClientDrift(doc: Json, root: string): string[] {
  const ops = documentOperations(doc);
  const problems: string[] = [];
  if (ops.length === 0) problems.push('the OpenAPI document has no operations');
  const ids = new Set(ops.map((o) => o.id));
  for (const client of CLIENTS) {
    const text = sources(root, client.dir, client.files);
    if (!text) {
      problems.push(`${client.name}: no sources under ${client.dir}`);
      continue;
    }
    for (const op of ops) {
      if (!client.tableEntry(op).test(text)) problems.push(`${client.name}: no operation-table entry for ${op.id} (${op.method} ${op.path})`);
      if (!client.method(op).test(text)) problems.push(`${client.name}: no method for ${op.id} (${op.method} ${op.path})`);
    }
    for (const m of text.matchAll(client.anyEntry)) {
      if (!ids.has(m[1])) problems.push(`${client.name}: its operation table lists ${m[1]}, which the document does not have`);
    }
  }
  return problems;
}

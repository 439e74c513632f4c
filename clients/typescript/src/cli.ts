#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { GatewayError } from './errors';
import { GatewayClient } from './index';
import { FRAMEWORKS } from './generated/constants';

const USAGE = `Usage: speech-gateway gate --framework <${FRAMEWORKS.join('|')}> [--min-score N] [--max-open-findings N]
                          [--url URL] [--api-key KEY] [--json]

Asks the gateway's release gate (GET /v1/compliance/gate) and exits 0 on pass, 1 on fail,
2 when the gate could not be asked (bad arguments, key, network).
URL defaults to $GATEWAY_URL or http://localhost:3000; the key to $GATEWAY_API_KEY (needs read:compliance).`;

interface GateCheck {
  name: string;
  passed: boolean;
  message: string;
}
interface GateAnswer {
  framework: string;
  passed: boolean;
  result?: string;
  reasons: string[];
  checks?: GateCheck[];
  score?: number;
  status?: string;
}

async function gate(argv: string[], out: (s: string) => void): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      framework: { type: 'string' },
      'min-score': { type: 'string' },
      'max-open-findings': { type: 'string' },
      url: { type: 'string' },
      'api-key': { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    out(USAGE);
    return 0;
  }
  if (!values.framework) throw new UsageError('--framework is required');
  for (const [flag, v] of [
    ['--min-score', values['min-score']],
    ['--max-open-findings', values['max-open-findings']],
  ] as const) {
    if (v !== undefined && (v.trim() === '' || Number.isNaN(Number(v)))) throw new UsageError(`${flag} must be a number, got '${v}'`);
  }
  const base = (values.url ?? process.env.GATEWAY_URL ?? 'http://localhost:3000').replace(/\/+$/, '');
  const key = values['api-key'] ?? process.env.GATEWAY_API_KEY;
  const client = new GatewayClient({ baseUrl: base, apiKey: key });
  const query: Record<string, string> = { framework: values.framework };
  if (values['min-score'] !== undefined) query.minScore = values['min-score'];
  if (values['max-open-findings'] !== undefined) query.maxOpenFindings = values['max-open-findings'];
  const answer = (await client.complianceGate(query as never)) as GateAnswer;
  if (!answer || typeof answer.passed !== 'boolean') throw new Error(`unexpected answer from ${base}/v1/compliance/gate`);
  if (values.json) out(JSON.stringify(answer, null, 2));
  else {
    out(
      `${answer.passed ? 'PASS' : 'FAIL'} ${answer.framework}${answer.score !== undefined ? `: score ${answer.score}` : ''}${answer.status ? ` (${answer.status})` : ''}`,
    );
    for (const c of answer.checks ?? []) out(`  ${c.passed ? 'ok  ' : 'FAIL'} ${c.message}`);
    if (!answer.checks) for (const r of answer.reasons) out(`  FAIL ${r}`);
  }
  return answer.passed ? 0 : 1;
}

class UsageError extends Error {}

export async function main(argv = process.argv.slice(2), out = (s: string) => console.log(s), err = (s: string) => console.error(s)): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === 'gate') return await gate(rest, out);
    if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
      out(USAGE);
      return command === undefined ? 2 : 0;
    }
    throw new UsageError(`unknown command '${command}'`);
  } catch (e) {
    if (e instanceof UsageError || (e as { code?: string }).code?.startsWith?.('ERR_PARSE_ARGS')) err(`${(e as Error).message}\n\n${USAGE}`);
    else if (e instanceof GatewayError)
      err(`gateway refused: ${e.code}: ${e.message}${e.fields.length ? ` (${e.fields.map((f) => `${f.field}: ${f.message}`).join('; ')})` : ''}`);
    else err(`could not ask the gate: ${(e as Error).message}${(e as { cause?: Error }).cause ? ` (${(e as { cause: Error }).cause.message})` : ''}`);
    return 2;
  }
}

if (require.main === module) {
  void main().then((code) => {
    process.exitCode = code;
  });
}

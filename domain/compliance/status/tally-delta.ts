import type { ColumnRow } from '../../database/row-batch';
import type { TallyRow } from './measurement';

const parsed = (v: unknown): unknown => (typeof v === 'string' ? JSON.parse(v) : v);

/**
 * What a new row adds to `compliance_tally`: the buckets the tally triggers of its table append for
 * an insert (`compliance_tally_requirements`, `compliance_tally_findings`, migration 20261123120000),
 * stated for a creation that reads the tally in the statement that inserts its rows (the read cannot
 * see them: `ChangeRunner.create`). Rows of tables without a tally trigger add nothing.
 * tests/e2e/create-statements.test.ts checks these against the triggers' own rows.
 */
export function tallyDeltaOf(table: string, row: ColumnRow): TallyRow[] {
  if (row.deleted_at != null) return [];
  const bucket = { status: null, priority: null, clause: null, severity: null, passed: 0 };
  if (table === 'requirements') {
    const framework = row.framework as string;
    const validation = parsed(row.validation) as { status?: string } | null;
    const clauses = (parsed(row.clauses) as unknown[] | null) ?? [];
    return [
      {
        ...bucket,
        kind: 'r',
        framework,
        status: row.status as TallyRow['status'],
        priority: row.priority as TallyRow['priority'],
        n: 1,
        passed: validation?.status === 'passed' ? 1 : 0,
      },
      ...clauses.map((c): TallyRow => ({ ...bucket, kind: 'c', framework, clause: String(c), n: 1 })),
    ];
  }
  if (table === 'audit_findings') {
    if (row.status === 'resolved') return [];
    return [{ ...bucket, kind: 'f', framework: row.framework as string, severity: row.severity as TallyRow['severity'], n: 1 }];
  }
  return [];
}

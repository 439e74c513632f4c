/**
 * The compliance figures counted afresh from the tables (what the scores were computed from before
 * the tally existed) and as the tally has them. Equal means every score is what a full recount gives.
 */
export type Query = (sql: string) => Promise<Record<string, unknown>[]>;

const RECOUNT = `
  select 'r' as kind, framework, status, priority, null::text as clause, null::text as severity, count(*)::int as n,
         count(*) filter (where validation->>'status' = 'passed')::int as passed
    from requirements where deleted_at is null group by framework, status, priority
  union all
  select 'c', r.framework, null, null, c.clause, null, count(*)::int, 0
    from requirements r cross join lateral jsonb_array_elements_text(coalesce(r.clauses, '[]'::jsonb)) as c(clause)
   where r.deleted_at is null group by r.framework, c.clause
  union all
  select 'f', framework, null, null, null, severity, count(*)::int, 0
    from audit_findings where status <> 'resolved' group by framework, severity`;

const TALLY = `
  select kind, framework, status, priority, clause, severity, sum(n)::int as n, sum(passed)::int as passed
    from compliance_tally group by kind, framework, status, priority, clause, severity having sum(n) <> 0`;

const key = (r: Record<string, unknown>) => [r.kind, r.framework, r.status, r.priority, r.clause, r.severity].map((v) => v ?? '').join('|');

/** Buckets where the tally and a recount differ (empty when they agree), and how many buckets there are. */
export async function tallyDrift(query: Query): Promise<{ drift: string[]; buckets: number }> {
  const recount = new Map((await query(RECOUNT)).map((r) => [key(r), `${r.n}/${r.passed}`]));
  const tally = new Map((await query(TALLY)).map((r) => [key(r), `${r.n}/${r.passed}`]));
  const drift: string[] = [];
  for (const k of new Set([...recount.keys(), ...tally.keys()])) {
    if (recount.get(k) !== tally.get(k)) drift.push(`${k}: recount ${recount.get(k) ?? '-'}, tally ${tally.get(k) ?? '-'}`);
  }
  return { drift, buckets: recount.size };
}

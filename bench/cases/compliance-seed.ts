import { mapLimit } from '../../domain/util/concurrency';

const FRAMEWORKS = ['iso13485', 'fda21cfr11', 'gdpr', 'soc2'] as const;
const PRIORITIES = ['critical', 'high', 'medium', 'low'] as const;
const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;

/** The GraphQL case: a page of requirements with the framework each belongs to and its findings. */
export const GRAPHQL_QUERY = `query BenchRequirements($limit: Int) {
  requirements(limit: $limit) {
    data {
      id title status priority framework
      frameworkInfo { id name version }
      findings { id title severity status }
    }
  }
}`;

async function post(url: string, key: string, body: unknown) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`POST ${url} → ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** `count` requirements through the REST batch endpoint, each with one audit finding. */
export async function seedCompliance(gwUrl: string, key: string, count: number): Promise<string[]> {
  const ids: { id: string; framework: string }[] = [];
  for (let start = 0; start < count; start += 100) {
    const requirements = Array.from({ length: Math.min(100, count - start) }, (_, k) => {
      const i = start + k;
      return { title: `Bench requirement ${i}`, framework: FRAMEWORKS[i % 4], priority: PRIORITIES[i % 4] };
    });
    const r = await post(`${gwUrl}/v1/requirements/batch`, key, { requirements });
    if (r.errors?.length) throw new Error(`batch create errors: ${JSON.stringify(r.errors).slice(0, 300)}`);
    r.created.forEach((c: { id: string }, k: number) => ids.push({ id: c.id, framework: requirements[k].framework }));
  }
  await mapLimit(ids, 8, async ({ id, framework }, i) =>
    post(`${gwUrl}/v1/audits/findings`, key, {
      title: `Bench finding ${i}`,
      description: 'Found during the benchmark seed',
      framework,
      severity: SEVERITIES[i % 4],
      requirementId: id,
      evidence: [`evidence-${i}`],
    }),
  );
  return ids.map((x) => x.id);
}

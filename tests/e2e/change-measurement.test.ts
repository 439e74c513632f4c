/**
 * A change's figures before and after it come from one read of the tally, taken once its writes
 * are made (issue #14): "before" leaves out the tally rows its own transaction appended, and must
 * be what a read before the change gives.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { startGateway, type TestGateway } from '../helpers/gateway';

let gw: TestGateway;
const root = () => gw.db.orm.em as unknown as EntityManager;

beforeAll(async () => {
  gw = await startGateway();
  await gw.request('/v1/requirements/batch', {
    method: 'POST',
    json: {
      requirements: ['gdpr', 'soc2', 'gdpr', 'iso13485'].map((framework, i) => ({
        title: `Access to personal data is logged (${i})`,
        framework,
        priority: 'high',
      })),
    },
  });
});
afterAll(async () => {
  await gw?.close();
});

const insert = (em: EntityManager, id: string, framework: string, status: string) =>
  em
    .getConnection()
    .execute(
      `insert into requirements (id, title, framework, priority, status, acceptance_criteria, clauses, created_at, updated_at) values (?, ?, ?, 'critical', ?, '[]', '[]', now(), now())`,
      [id, `Requirement ${id}`, framework, status],
      'run',
      em.getTransactionContext(),
    );

test('before and after from one read equal a read before the change and one after it', async () => {
  const status = gw.services.complianceStatus;
  const change = root()
    .fork()
    .transactional(async (em) => {
      const tx = em as EntityManager;
      const readBefore = await status.measure(tx);
      await insert(tx, 'req_measure_1', 'gdpr', 'completed');
      await tx.getConnection().execute(`update requirements set status = 'in-progress' where framework = 'soc2'`, [], 'run', tx.getTransactionContext());
      const readAfter = await status.measure(tx);
      expect(readAfter.frameworks.gdpr.score).not.toBe(readBefore.frameworks.gdpr.score);
      expect(await status.measureChange(tx)).toEqual({ before: readBefore, after: readAfter });
      throw new Error('rolled back');
    });
  await expect(change).rejects.toThrow('rolled back');
});

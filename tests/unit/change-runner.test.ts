import { ChangeRunner, type ChangeRunnerDeps } from '../../domain/compliance/change-runner';
import type { DomainContext } from '../../domain/context';

// A change's own tally rows are recognised by its top transaction's id, so it must never run in a
// savepoint of another transaction: the runner refuses before it opens anything.
test('a compliance change refuses to run inside another transaction', async () => {
  let opened = 0;
  const em = { isInTransaction: () => true, transactional: async () => void opened++ };
  const ctx = { requestId: 'r', em, principal: null } as unknown as DomainContext;
  const runner = new ChangeRunner({} as ChangeRunnerDeps);
  await expect(runner.run(ctx, async () => 'changed')).rejects.toThrow(/transaction of its own/);
  expect(opened).toBe(0);
});

test('outside a transaction the runner opens one for the change', async () => {
  let opened = 0;
  const em = { isInTransaction: () => false, transactional: async (work: (tx: unknown) => unknown) => (opened++, work({})) };
  const ctx = { requestId: 'r', em, principal: null } as unknown as DomainContext;
  const runner = new ChangeRunner({ events: { publish: async () => undefined } } as unknown as ChangeRunnerDeps);
  await expect(runner.run(ctx, async () => 'changed')).resolves.toBe('changed');
  expect(opened).toBe(1);
});

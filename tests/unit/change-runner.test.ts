import { ChangeRunner, type ChangeRunnerDeps } from '../../domain/compliance/change-runner';
import type { DomainContext } from '../../domain/context';
import { ComplianceUpkeep, TALLY_CHECK_EVERY_CHANGES } from '../../domain/compliance/status/compliance-upkeep';

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

// Every change sums the tally's deltas since the last compaction, so under a stream of writes the
// tally is checked by the number of committed changes, not only by the clock.
test('every 32 committed changes that moved the tally ask for a compaction check', async () => {
  const status = new ComplianceUpkeep({} as never);
  const asked = jest.fn();
  status.onTallyGrowth = asked;
  for (let i = 0; i < TALLY_CHECK_EVERY_CHANGES - 1; i++) status.changeCommitted();
  expect(asked).not.toHaveBeenCalled();
  status.changeCommitted();
  expect(asked).toHaveBeenCalledTimes(1);
  for (let i = 0; i < TALLY_CHECK_EVERY_CHANGES; i++) status.changeCommitted();
  expect(asked).toHaveBeenCalledTimes(2);
});

test('a committed change tells the figures it committed; one that staged nothing does not', async () => {
  const committed = jest.fn();
  const em = { isInTransaction: () => false, transactional: async (work: (tx: unknown) => unknown) => work({}) };
  const ctx = { requestId: 'r', em, principal: null } as unknown as DomainContext;
  const events = { publish: async () => undefined, versionProbe: () => null, stageInto: async () => undefined };
  const runner = new ChangeRunner({ events, status: { changesInto: async () => [] }, upkeep: { changeCommitted: committed } } as unknown as ChangeRunnerDeps);
  await runner.run(ctx, async () => 'nothing staged');
  expect(committed).not.toHaveBeenCalled();
  await runner.run(ctx, async (change) => change.emit('requirement.created', { id: 'req_1' }));
  expect(committed).toHaveBeenCalledTimes(1);
  await expect(runner.run(ctx, async (change) => (change.emit('requirement.created', { id: 'req_2' }), Promise.reject(new Error('failed'))))).rejects.toThrow(
    'failed',
  );
  expect(committed).toHaveBeenCalledTimes(1);
});

import { AsyncLocalStorage } from 'node:async_hooks';
import { TransactionContext } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Database } from '../../domain/database/orm';
import { GatewayEntityManager } from '../../domain/database/orm-seam';
import { MetricSnapshot } from '../../domain/compliance/dashboard/snapshot.entity';
import { openTestDatabase } from '../helpers/database';

/**
 * The EntityManager flushes, opens transactions and counts pages without MikroORM's
 * AsyncLocalStorage (domain/database/orm-seam.ts), and does each as MikroORM does: on the embedded
 * database and on a server (the suite's PostgreSQL when it has one).
 */
let db: Database;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ db, close } = await openTestDatabase('orm-seam'));
}, 120_000);
afterAll(async () => close?.());

const em = () => db.orm.em.fork() as EntityManager;
let serial = 0;
const snapshot = (e: EntityManager, framework: string) =>
  e.create(MetricSnapshot, {
    id: `snap_seam_${++serial}`,
    takenAt: new Date(),
    framework,
    complianceScore: 1,
    requirementCompletion: 0.5,
    validationRate: 0.25,
  });
const frameworksStored = async (framework: string) => (await em().find(MetricSnapshot, { framework })).map((s) => s.id).sort();

/** MikroORM's AsyncLocalStorage calls (`run`, `enterWith` from its own code) while `work` runs. */
async function storesUsedDuring(work: () => Promise<unknown>): Promise<string[]> {
  const used: string[] = [];
  const record = (method: string) => {
    const stack = new Error().stack ?? '';
    if (stack.includes('@mikro-orm'))
      used.push(
        `${method}: ${stack
          .split('\n')
          .find((l) => l.includes('@mikro-orm'))
          ?.trim()}`,
      );
  };
  // Plain wrappers around the originals (not jest.spyOn: the ORM must see the real stores work).
  const original = { run: AsyncLocalStorage.prototype.run, enterWith: AsyncLocalStorage.prototype.enterWith };
  AsyncLocalStorage.prototype.run = function (this: AsyncLocalStorage<unknown>, ...args: Parameters<AsyncLocalStorage<unknown>['run']>) {
    record('run');
    return original.run.apply(this, args);
  } as AsyncLocalStorage<unknown>['run'];
  AsyncLocalStorage.prototype.enterWith = function (this: AsyncLocalStorage<unknown>, store: unknown) {
    record('enterWith');
    return original.enterWith.call(this, store);
  };
  try {
    await work();
  } finally {
    AsyncLocalStorage.prototype.run = original.run;
    AsyncLocalStorage.prototype.enterWith = original.enterWith;
  }
  return used;
}

test('every EntityManager, forks included, is the gateway’s', () => {
  expect(db.orm.em).toBeInstanceOf(GatewayEntityManager);
  expect(em()).toBeInstanceOf(GatewayEntityManager);
});

test('the detector sees MikroORM’s own store when it is used', async () => {
  const used = await storesUsedDuring(async () => TransactionContext.create(em(), async () => undefined));
  expect(used).toHaveLength(1);
});

test('a flush, a transaction with a savepoint, an auto-flush and a page write and read what MikroORM would, with no store used', async () => {
  let page: [MetricSnapshot[], number] | undefined;
  const used = await storesUsedDuring(async () => {
    const e = em();
    snapshot(e, 'seam-flush');
    await e.flush();

    await em().transactional(async (tx) => {
      snapshot(tx, 'seam-tx');
      // A query of a class with a pending creation flushes it first (MikroORM's auto-flush).
      expect(await tx.count(MetricSnapshot, { framework: 'seam-tx' })).toBe(1);
      await tx.transactional(async (inner) => void snapshot(inner, 'seam-tx'));
      snapshot(tx, 'seam-tx');
    });

    page = await em().findAndCount(MetricSnapshot, { framework: 'seam-tx' }, { orderBy: { id: 'asc' }, limit: 2 });
  });
  expect(used).toEqual([]);
  expect(await frameworksStored('seam-flush')).toHaveLength(1);
  expect(await frameworksStored('seam-tx')).toHaveLength(3);
  expect(page![0]).toHaveLength(2);
  expect(page![1]).toBe(3);
});

test('a transaction that throws keeps nothing it wrote, a savepoint that throws only its own part', async () => {
  await expect(
    em().transactional(async (tx) => {
      snapshot(tx, 'seam-rollback');
      await tx.flush();
      throw new Error('refused');
    }),
  ).rejects.toThrow('refused');
  expect(await frameworksStored('seam-rollback')).toEqual([]);

  await em().transactional(async (tx) => {
    snapshot(tx, 'seam-partial');
    await tx.flush();
    await expect(
      tx.transactional(async (inner) => {
        snapshot(inner, 'seam-partial');
        await inner.flush();
        throw new Error('inner refused');
      }),
    ).rejects.toThrow('inner refused');
  });
  expect(await frameworksStored('seam-partial')).toHaveLength(1);
});

test('a flush asked for while another runs on the same EntityManager waits for it: neither is refused, nothing is lost', async () => {
  const e = em();
  snapshot(e, 'seam-queued');
  const first = e.flush();
  snapshot(e, 'seam-queued');
  const second = e.flush();
  await Promise.all([first, second]);
  expect(await frameworksStored('seam-queued')).toHaveLength(2);
});

test('the commit of a top-level transaction is announced once, as MikroORM announces it', async () => {
  const e = em();
  let commits = 0;
  e.getEventManager().registerSubscriber({ afterTransactionCommit: () => void commits++ });
  await e.transactional(async (tx) => {
    snapshot(tx, 'seam-events');
    await tx.transactional(async (inner) => void snapshot(inner, 'seam-events'));
  });
  expect(commits).toBe(1);
});

test('options the gateway’s transactions do not implement are refused, not ignored', async () => {
  await expect(em().transactional(async () => undefined, { clear: true })).rejects.toThrow(/clear not supported/);
});

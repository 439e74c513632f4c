import { resolvedPackageVersion } from './package-version';
import {
  TransactionEventBroadcaster,
  type CountOptions,
  type EntityName,
  type FilterQuery,
  type FindOptions,
  type Loaded,
  type TransactionOptions,
} from '@mikro-orm/core';
import { SqlEntityManager, type PostgreSqlDriver } from '@mikro-orm/postgresql';

/**
 * The one place the gateway reaches under MikroORM's public API: the EntityManager flushes, opens
 * transactions and counts pages without MikroORM's AsyncLocalStorage.
 *
 * MikroORM runs every flush inside an AsyncLocalStorage (UnitOfWork's `insideFlush`, which refuses a
 * flush from a flush hook), every `transactional()` callback inside another (`TransactionContext`,
 * where the global EntityManager finds the transaction's fork), and `findAndCount` inside a third.
 * On Node 20 AsyncLocalStorage is built on async_hooks, and one used once stays on for the life of
 * the process: from the first write on, every async resource anything makes (each request's ticks,
 * timers and socket writes) runs the hooks. A cache-hit `POST /api/v1/generate` cost about 3 µs more
 * CPU with them on, 10–15 % of all it costs (bench/RESULTS.md).
 *
 * The gateway needs none of the three: every request, job and upkeep works on a fork it holds (no
 * global context to resolve), and no flush hook flushes. So `GatewayEntityManager` (MikroORM's
 * `entityManager` option, so every fork is one too) does what those three methods do, in the same
 * order, minus the stores. Everything else is MikroORM's own; domain code calls `em.flush()` and
 * `em.transactional()` as usual, and MikroORM's own flushes (a query's auto-flush) come here too.
 *
 * tests/unit/framework-seams.test.ts fails on a MikroORM version this was not checked against, and
 * tests/integration/orm-seam.test.ts fails if a flush, a transaction or a page turns a store on.
 */

/** The @mikro-orm/core versions whose UnitOfWork.commit, TransactionManager and findAndCount this follows. */
export const MIKRO_ORM_VERSIONS_CHECKED = ['6.6.16'];

/** The installed @mikro-orm/core version. */
export const mikroOrmVersion = (): string => resolvedPackageVersion('@mikro-orm/core');

/** What UnitOfWork.commit uses of its own (private in MikroORM's types). */
interface UnitOfWorkInternals {
  working: boolean;
  flushQueue: (() => Promise<unknown>)[];
  doCommit(): Promise<void>;
  postCommitCleanup(): void;
}

function internalsOf(em: SqlEntityManager): UnitOfWorkInternals {
  const uow = em.getUnitOfWork(false) as unknown as UnitOfWorkInternals;
  if (typeof uow.doCommit !== 'function' || typeof uow.postCommitCleanup !== 'function' || !Array.isArray(uow.flushQueue)) {
    throw new Error(`@mikro-orm/core ${mikroOrmVersion()}: UnitOfWork's commit steps are gone; see domain/database/orm-seam.ts`);
  }
  return uow;
}

/** The transaction options `transactional` takes here: those it passes to the connection. */
const PASSED_OPTIONS = new Set(['isolationLevel', 'readOnly']);

export class GatewayEntityManager extends SqlEntityManager<PostgreSqlDriver> {
  /**
   * The unit of work's changes written (in a transaction of their own unless this one is in one), as
   * UnitOfWork.commit writes them. A flush asked for while another runs on this EntityManager waits
   * its turn, as commit() queues it. (commit() refuses one asked from inside a flush hook, which it
   * tells by the store; the gateway has no hook that flushes.)
   */
  override async flush(): Promise<void> {
    const uow = internalsOf(this.getContext());
    if (uow.working) return new Promise<void>((resolve, reject) => void uow.flushQueue.push(() => uow.doCommit().then(resolve, reject)));
    uow.working = true;
    try {
      await uow.doCommit();
      while (uow.flushQueue.length) await uow.flushQueue.shift()!();
    } finally {
      uow.postCommitCleanup();
      uow.working = false;
    }
  }

  /**
   * `cb` on a fork (this one's entities carried over) bound to a new transaction, or to a savepoint
   * when this EntityManager is in one; the fork is flushed before the commit, and the transaction
   * events fire as MikroORM fires them (the audit trail listens for the commit). Unlike MikroORM's,
   * the fork's entities are not merged back into this EntityManager afterwards: callers take what
   * they need from `cb`'s result.
   */
  override async transactional<T>(cb: (em: this) => T | Promise<T>, options: TransactionOptions = {}): Promise<T> {
    const unsupported = Object.keys(options).filter((k) => !PASSED_OPTIONS.has(k));
    if (unsupported.length) throw new Error(`transactional(): ${unsupported.join(', ')} not supported here (domain/database/orm-seam.ts)`);
    const em = this.getContext(false);
    const outer = em.getTransactionContext();
    const fork = em.fork({ clear: false, cloneEventManager: true });
    const eventBroadcaster = new TransactionEventBroadcaster(fork, undefined, { topLevelTransaction: !outer });
    return fork.getConnection().transactional(
      async (trx) => {
        fork.setTransactionContext(trx);
        const out = await cb(fork);
        await fork.flush();
        return out;
      },
      { ctx: outer, eventBroadcaster, isolationLevel: options.isolationLevel, readOnly: options.readOnly },
    );
  }

  /** `find` and `count` side by side, as MikroORM's findAndCount runs them (which it does inside a store). */
  override async findAndCount<Entity extends object, Hint extends string = never, Fields extends string = '*', Excludes extends string = never>(
    entityName: EntityName<Entity>,
    where: FilterQuery<NoInfer<Entity>>,
    options: FindOptions<Entity, Hint, Fields, Excludes> = {},
  ): Promise<[Loaded<Entity, Hint, Fields, Excludes>[], number]> {
    const em = this.getContext(false);
    await em.tryFlush(entityName, options);
    // Flushed once above: neither query flushes again (as in MikroORM's).
    const once = { ...options, flushMode: 'commit' as const };
    return Promise.all([em.find(entityName, where, once), em.count(entityName, where, once as CountOptions<Entity, Hint>)]);
  }
}

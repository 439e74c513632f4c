import 'reflect-metadata';
import type { EntityManager } from '@mikro-orm/postgresql';
import { MikroORM } from '@mikro-orm/postgresql';
import { ormOptions } from '../../domain/database/orm';
import { DeliveryWorker } from '../../domain/compliance/webhooks/delivery-worker';
import { createStandaloneDatabase, type TestDatabase } from '../helpers/database';
import { startWebhookReceiver } from '../helpers/webhook-receiver';
import { waitFor } from '../helpers/wait';

/**
 * Issue 37 finding 1: migration 20261128060000 moves each existing delivery's payload to one
 * `webhook_events` row per event and clears the copies, and the worker still sends those deliveries
 * (on the embedded database or TEST_DATABASE_URL).
 */
let db: TestDatabase;
let orm: MikroORM;

beforeAll(async () => {
  db = await createStandaloneDatabase('gw_outbox_mig');
  orm = await MikroORM.init(ormOptions(db.url, 4));
}, 120_000);
afterAll(async () => {
  await orm?.close(true);
  await db?.drop();
});

test('existing deliveries keep their payload (once per event) and are still sent after the migration', async () => {
  const receiver = await startWebhookReceiver();
  try {
    const migrator = orm.getMigrator();
    await migrator.up({ to: 'Migration20261126050000_tally_change_function' });
    const conn = (orm.em as unknown as EntityManager).getConnection();
    await conn.execute(
      `insert into webhooks (id, url, events, secret, owner_key_id, active, created_at) values ('whk_old', ?, '["*"]', 'whsec_0123456789abcdef0123', 'admin', true, now())`,
      [`${receiver.url}/old`],
    );
    await conn.execute(
      `insert into webhooks (id, url, events, secret, owner_key_id, active, created_at) values ('whk_old2', ?, '["*"]', 'whsec_0123456789abcdef0123', 'admin', true, now())`,
      [`${receiver.url}/old2`],
    );
    const payload = JSON.stringify({
      id: 'evt_old',
      type: 'requirement.created',
      data: { id: 'req_1', title: 'Before the migration' },
      createdAt: new Date().toISOString(),
    });
    for (const [id, hook, status] of [
      ['dlv_a', 'whk_old', 'pending'],
      ['dlv_b', 'whk_old2', 'delivered'],
    ]) {
      await conn.execute(
        `insert into webhook_deliveries (id, webhook_id, event_id, type, payload, status, attempts, next_attempt_at, created_at) values (?, ?, 'evt_old', 'requirement.created', ?, ?, 0, now(), now())`,
        [id, hook, payload, status],
      );
    }
    await migrator.up();

    const events = await conn.execute(`select id, payload, excluded, expanded_at from webhook_events`);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ id: 'evt_old', payload: JSON.parse(payload), excluded: [] });
    expect(events[0].expanded_at).not.toBeNull();
    const copies = await conn.execute(`select count(*)::int as n from webhook_deliveries where payload is not null`);
    expect(copies[0].n).toBe(0);
    const receivers = await conn.execute(`select distinct receiver from webhooks`);
    expect(receivers).toEqual([{ receiver: receiver.url }]);

    const worker = new DeliveryWorker(
      orm.em as unknown as EntityManager,
      { instanceId: 'migration-test', policy: { allowPrivateNetworks: true } },
      { pollIntervalMs: 50 },
    );
    worker.start();
    try {
      const got = await waitFor(() => receiver.received.find((r) => r.path === '/old'));
      expect(got.body).toMatchObject({ id: 'evt_old', type: 'requirement.created', data: { title: 'Before the migration' } });
      const [row] = await waitFor(async () => {
        const rows = await conn.execute(`select status from webhook_deliveries where id = 'dlv_a' and status = 'delivered'`);
        return rows.length ? rows : undefined;
      });
      expect(row.status).toBe('delivered');
      expect(receiver.received.filter((r) => r.path === '/old2')).toHaveLength(0);
    } finally {
      await worker.stop();
    }
  } finally {
    await receiver.close();
  }
}, 60_000);

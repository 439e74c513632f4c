import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook fan-out with bounded memory (issue 37). An event's payload is stored once, in
 * `webhook_events`, with the ids of the subscribed webhooks it must not go to (their owner may not
 * read it; usually none); the delivery worker expands it into
 * `webhook_deliveries` rows (which no longer carry the payload) in pages, in SQL, after the change
 * has committed. Existing deliveries keep working: their payloads move to `webhook_events` (one row
 * per event, already expanded) and their own copies are cleared. `webhooks.receiver` is the origin a
 * webhook posts to (scheme, host, port), which the fair scheduler counts in-flight deliveries by.
 */
export class Migration20261128060000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "webhook_events" ("id" varchar(40) not null, "type" varchar(60) not null, "payload" jsonb not null, "excluded" jsonb not null default '[]', "created_at" timestamptz not null, "expanded_at" timestamptz null, constraint "webhook_events_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "webhook_events_unexpanded_index" on "webhook_events" ("created_at") where "expanded_at" is null;`);
    this.addSql(
      `insert into "webhook_events" ("id", "type", "payload", "excluded", "created_at", "expanded_at")
         select distinct on ("event_id") "event_id", "type", "payload", '[]'::jsonb, "created_at", "created_at"
           from "webhook_deliveries" where "payload" is not null
          order by "event_id", "created_at"
       on conflict ("id") do nothing;`,
    );
    this.addSql(`alter table "webhook_deliveries" alter column "payload" drop not null;`);
    this.addSql(`update "webhook_deliveries" set "payload" = null where "payload" is not null;`);
    this.addSql(`alter table "webhooks" add column "receiver" varchar(300) null;`);
    this.addSql(`update "webhooks" set "receiver" = lower(substring("url" from '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]+'));`);
  }

  override async down(): Promise<void> {
    this.addSql(`update "webhook_deliveries" d set "payload" = e."payload" from "webhook_events" e where e."id" = d."event_id" and d."payload" is null;`);
    this.addSql(`delete from "webhook_deliveries" where "payload" is null;`);
    this.addSql(`alter table "webhook_deliveries" alter column "payload" set not null;`);
    this.addSql(`alter table "webhooks" drop column "receiver";`);
    this.addSql(`drop table if exists "webhook_events";`);
  }
}

import { Migration } from '@mikro-orm/migrations';

/**
 * The audit trail (21 CFR 11.10(e)): append-only, hash-chained. Rows are inserted unsealed by the
 * change they record and sealed once (seq, previous_hash, hash) by the sealer; the trigger refuses
 * every other update, every delete and truncation, so the application cannot rewrite history.
 */
export class Migration20261123010000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "audit_trail" ("id" varchar(40) not null, "seq" bigint null, "at" timestamptz not null, "key_id" varchar(40) null, "actor" varchar(200) not null, "action" varchar(60) not null, "entity_type" varchar(30) not null, "entity_id" varchar(60) not null, "request_id" varchar(100) null, "before" jsonb null, "after" jsonb null, "content_hash" varchar(64) not null, "previous_hash" varchar(64) null, "hash" varchar(64) null, constraint "audit_trail_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "audit_trail" add constraint "audit_trail_seq_unique" unique ("seq");`);
    this.addSql(`create index "audit_trail_entity_type_entity_id_index" on "audit_trail" ("entity_type", "entity_id");`);
    this.addSql(`create index "audit_trail_key_id_index" on "audit_trail" ("key_id");`);
    this.addSql(`create index "audit_trail_at_id_index" on "audit_trail" ("at", "id");`);
    this.addSql(`create index "audit_trail_unsealed_index" on "audit_trail" ("at", "id") where "seq" is null;`);
    this.addSql(`create function "audit_trail_append_only"() returns trigger language plpgsql as $$
begin
  if tg_op = 'UPDATE' and old.seq is null and new.seq is not null
     and (new.id, new.at, new.key_id, new.actor, new.action, new.entity_type, new.entity_id, new.request_id, new.before, new.after, new.content_hash)
         is not distinct from (old.id, old.at, old.key_id, old.actor, old.action, old.entity_type, old.entity_id, old.request_id, old.before, old.after, old.content_hash) then
    return new;
  end if;
  raise exception 'audit_trail is append-only: % refused', lower(tg_op) using errcode = '42501';
end $$;`);
    this.addSql(`create trigger "audit_trail_append_only" before update or delete on "audit_trail" for each row execute function "audit_trail_append_only"();`);
    this.addSql(`create trigger "audit_trail_no_truncate" before truncate on "audit_trail" for each statement execute function "audit_trail_append_only"();`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "audit_trail" cascade;`);
    this.addSql(`drop function if exists "audit_trail_append_only"();`);
  }
}

import { Migration } from '@mikro-orm/migrations';

export class Migration20261122014758 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "activity_log" ("id" varchar(40) not null, "at" timestamptz not null, "type" varchar(60) not null, "user" varchar(200) not null, "description" text not null, "subject_id" varchar(48) null, constraint "activity_log_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "activity_log_at_index" on "activity_log" ("at");`);

    this.addSql(
      `create table "api_keys" ("id" varchar(40) not null, "name" varchar(200) not null, "secret_hash" varchar(64) not null, "prefix" varchar(16) not null, "permissions" jsonb not null, "plan" varchar(20) not null default 'standard', "is_admin" boolean not null default false, "expires_at" timestamptz null, "revoked_at" timestamptz null, "last_used_at" timestamptz null, "created_by" varchar(40) null, "created_at" timestamptz not null, constraint "api_keys_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "api_keys_secret_hash_index" on "api_keys" ("secret_hash");`);
    this.addSql(`alter table "api_keys" add constraint "api_keys_secret_hash_unique" unique ("secret_hash");`);

    this.addSql(
      `create table "audio_blobs" ("key" varchar(64) not null, "data" bytea not null, "size" int not null, "created_at" timestamptz not null, constraint "audio_blobs_pkey" primary key ("key"));`,
    );

    this.addSql(
      `create table "audio_entries" ("hash" varchar(64) not null, "content_hash" varchar(64) not null, "semantic_hash" varchar(64) not null, "provider" varchar(20) not null, "voice" varchar(100) not null, "language" varchar(20) not null, "format" varchar(8) not null, "quality" varchar(16) not null, "speed" double precision not null, "options" jsonb not null, "original_text" text not null, "normalized_text" text not null, "duration" double precision not null, "file_size" int not null, "sample_rate" int not null, "bitrate" int not null, "blob_key" varchar(64) not null, "cost_amount" double precision not null, "cost_currency" varchar(3) not null default 'USD', "characters_charged" int not null, "request_metadata" jsonb null, "generated_at" timestamptz not null, "last_accessed_at" timestamptz not null, "access_count" int not null default 0, "expires_at" timestamptz null, constraint "audio_entries_pkey" primary key ("hash"));`,
    );
    this.addSql(`create index "audio_entries_content_hash_index" on "audio_entries" ("content_hash");`);
    this.addSql(`create index "audio_entries_semantic_hash_index" on "audio_entries" ("semantic_hash");`);
    this.addSql(`create index "audio_entries_expires_at_index" on "audio_entries" ("expires_at");`);

    this.addSql(
      `create table "audit_findings" ("id" varchar(40) not null, "title" varchar(300) not null, "description" text null, "framework" varchar(20) not null, "requirement_id" varchar(40) null, "severity" varchar(10) not null, "status" varchar(12) not null default 'open', "evidence" jsonb not null, "resolution" text null, "resolved_at" timestamptz null, "discovered_at" timestamptz not null, "due_date" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "audit_findings_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "audit_findings_requirement_id_index" on "audit_findings" ("requirement_id");`);
    this.addSql(`create index "audit_findings_framework_severity_status_index" on "audit_findings" ("framework", "severity", "status");`);

    this.addSql(
      `create table "jobs" ("id" varchar(40) not null, "type" varchar(40) not null, "payload" jsonb not null, "status" varchar(12) not null default 'queued', "attempts" int not null default 0, "max_attempts" int not null default 8, "run_at" timestamptz not null, "locked_by" varchar(80) null, "locked_until" timestamptz null, "last_error" text null, "created_at" timestamptz not null, "finished_at" timestamptz null, constraint "jobs_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "jobs_status_run_at_index" on "jobs" ("status", "run_at");`);

    this.addSql(
      `create table "metric_snapshots" ("id" varchar(40) not null, "taken_at" timestamptz not null, "framework" varchar(20) null, "compliance_score" double precision not null, "requirement_completion" double precision not null, "validation_rate" double precision not null, constraint "metric_snapshots_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "metric_snapshots_framework_taken_at_index" on "metric_snapshots" ("framework", "taken_at");`);

    this.addSql(
      `create table "provider_stats" ("provider" varchar(20) not null, "requests" bigint not null default 0, "characters_processed" bigint not null default 0, "total_cost" double precision not null default 0, "total_latency_ms" double precision not null default 0, "errors" bigint not null default 0, constraint "provider_stats_pkey" primary key ("provider"));`,
    );

    this.addSql(
      `create table "reports" ("id" varchar(48) not null, "origin" varchar(12) not null, "type" varchar(16) not null, "framework" varchar(20) null, "format" varchar(8) not null, "include_evidence" boolean not null default false, "period" varchar(20) null, "range_start" timestamptz null, "range_end" timestamptz null, "status" varchar(12) not null default 'generating', "estimated_completion" timestamptz not null, "generated_at" timestamptz null, "expires_at" timestamptz null, "content" bytea null, "size" int null, "error" text null, "requested_by" varchar(40) null, "created_at" timestamptz not null, constraint "reports_pkey" primary key ("id"));`,
    );

    this.addSql(
      `create table "requirements" ("id" varchar(40) not null, "title" varchar(300) not null, "description" text null, "framework" varchar(20) not null, "category" varchar(100) null, "priority" varchar(10) not null default 'medium', "status" varchar(12) not null default 'pending', "acceptance_criteria" jsonb not null, "technical_context" jsonb null, "implementation" jsonb null, "validation" jsonb null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "deleted_at" timestamptz null, constraint "requirements_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "requirements_created_at_id_index" on "requirements" ("created_at", "id");`);
    this.addSql(`create index "requirements_framework_status_index" on "requirements" ("framework", "status");`);

    this.addSql(
      `create table "webhooks" ("id" varchar(40) not null, "url" text not null, "events" jsonb not null, "secret" varchar(200) not null, "owner_key_id" varchar(40) null, "active" boolean not null default true, "created_at" timestamptz not null, constraint "webhooks_pkey" primary key ("id"));`,
    );

    this.addSql(
      `create table "webhook_deliveries" ("id" varchar(40) not null, "webhook_id" varchar(40) not null, "event_id" varchar(40) not null, "type" varchar(60) not null, "payload" jsonb not null, "status" varchar(12) not null default 'pending', "attempts" int not null default 0, "next_attempt_at" timestamptz not null, "locked_by" varchar(80) null, "locked_until" timestamptz null, "last_status_code" int null, "last_error" text null, "delivered_at" timestamptz null, "created_at" timestamptz not null, constraint "webhook_deliveries_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "webhook_deliveries_webhook_id_index" on "webhook_deliveries" ("webhook_id");`);
    this.addSql(`create index "webhook_deliveries_status_next_attempt_at_index" on "webhook_deliveries" ("status", "next_attempt_at");`);
  }
}

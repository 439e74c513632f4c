import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import type { DomainContext } from '../context';
import { DomainError, mayPassOnRetry } from '../errors';
import { JobDeferred, type JobQueue, type RunningJob } from '../jobs/job-queue';
import { notAmong, receiverOf, type DeliveryGate } from '../webhooks/delivery-gate';
import { parseInput } from '../validation';
import { assertWebhookUrl, type UrlPolicy } from '../webhooks/ssrf';
import { postSigned, RESERVED_WEBHOOK_HEADERS } from '../webhooks/signed-post';
import type { Links } from '../links';
import type { GenerationResponse } from './generation-response';
import type { SpeechGeneration } from './generation';

/**
 * Asynchronous generation: a generation request with `webhook: {url, headers}` is queued as a
 * durable job (domain/jobs: it survives a restart and runs on whichever instance claims it), and
 * its outcome is POSTed to the URL, signed like the compliance webhooks, by a second job that
 * retries with backoff until the receiver answers 2xx. Two jobs, so a receiver that is down never
 * makes the audio be generated again.
 */

const GENERATE_JOB = 'tts.generate';
const DELIVER_JOB = 'tts.webhook';
const GENERATE_ATTEMPTS = 4;
const DELIVERY_ATTEMPTS = 12;
/** Generations of one caller running at once on an instance: a backlog of one caller leaves the other slot to everyone else. */
const GENERATIONS_PER_CALLER = 1;
/** A callback whose receiver or caller has its share of delivery slots is looked at again after this. */
const DEFER_MS = 250;
const MAX_HEADERS = 20;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

export const WebhookTargetSchema = z
  .object({
    url: z.string({ error: 'webhook.url is required and must be a string' }).min(1).max(2000),
    headers: z.record(z.string(), z.string().max(2000)).optional(),
    secret: z.string().min(16, 'must be at least 16 characters').max(200).optional(),
  })
  .strict();
export type WebhookTarget = z.infer<typeof WebhookTargetSchema>;

export interface QueuedGeneration {
  hash: string;
  status: 'queued';
  statusUrl: string;
  /** The signing secret, when the gateway chose it (the request named none); shown only here. */
  webhookSecret?: string;
}

/** What the webhook receives. */
export type GenerationWebhookBody =
  ({ hash: string } & Pick<GenerationResponse, 'audioUrl' | 'duration' | 'cached' | 'metadata'>) | { hash: string; error: { code: string; message: string } };

export type GenerationState = 'queued' | 'running' | 'completed' | 'failed';
export const GENERATION_STATES: readonly GenerationState[] = ['queued', 'running', 'completed', 'failed'];

export interface GenerationStatus {
  hash: string;
  status: GenerationState;
  statusUrl: string;
  submittedAt: string | null;
  finishedAt: string | null;
  attempts: number;
  audioUrl?: string;
  duration?: number;
  cached?: boolean;
  metadata?: GenerationResponse['metadata'];
  error?: { code: string; message: string };
  webhook: { status: 'pending' | 'delivered' | 'failed'; attempts: number; lastError: string | null } | null;
}

interface GenerateJobPayload {
  hash: string;
  request: Record<string, unknown>;
  webhook: { url: string; headers: Record<string, string>; secret: string };
  /** Who set the webhook (`callerOf`): only that caller sees its delivery's error text. */
  submittedBy?: string | null;
}

/**
 * The caller as the status sees it: the key, else the address of an anonymous caller (speech may be
 * open). A status read by anyone else shows the webhook's state and attempts, never its error text,
 * which names the target (issue 37).
 */
const callerOf = (ctx: DomainContext): string | null => (ctx.principal ? `key:${ctx.principal.keyId}` : ctx.ip ? `ip:${ctx.ip}` : null);

interface DeliverJobPayload {
  hash: string;
  generationJobId: string;
  /** The origin posted to and who set the webhook: the fair scheduler's keys (absent on jobs queued before them). */
  receiver?: string;
  submittedBy?: string | null;
  url: string;
  headers: Record<string, string>;
  secret: string;
  body: GenerationWebhookBody;
}

interface JobRow {
  id: string;
  status: 'queued' | 'running' | 'done' | 'failed';
  attempts: number;
  last_error: string | null;
  created_at: Date | string;
  finished_at: Date | string | null;
  payload: Record<string, unknown> | string;
}

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());
const payloadOf = <T>(row: { payload: unknown }): T => (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as T;

function invalidWebhook(field: string, message: string, details: Record<string, unknown> = {}): DomainError {
  return new DomainError('VALIDATION_ERROR', `Invalid request: ${field}: ${message}`, { fields: [{ field, message }], details: { ...details, field } });
}

/**
 * Generations and their callbacks run in two queues (issue 37): callbacks that never answer held
 * both generation slots before. Generations are shared fairly between callers (one caller's backlog
 * runs one at a time while others wait), callbacks through the delivery gate shared with compliance
 * webhooks (per-receiver and per-caller shares, circuit breaker, shorter timeout after failures).
 */
export class AsyncGenerationService {
  private stopping = false;
  /** Generations running on this instance, by caller. */
  private readonly runningBy = new Map<string, number>();

  constructor(
    private readonly deps: {
      rootEm: EntityManager;
      generation: SpeechGeneration;
      links: Links;
      jobs: JobQueue;
      /** The queue the callbacks are sent from (the generations' queue when absent). */
      deliveries?: JobQueue;
      gate: DeliveryGate;
      policy: UrlPolicy;
      onError?: (err: unknown) => void;
    },
  ) {
    deps.jobs.register(GENERATE_JOB, (job) => this.runGeneration(job));
    (deps.deliveries ?? deps.jobs).register(DELIVER_JOB, (job) => this.runDelivery(job));
  }

  /** The generations queue's claim filter: callers at their share wait. */
  generationClaimFilter() {
    const busy = [...this.runningBy].filter(([, n]) => n >= GENERATIONS_PER_CALLER).map(([caller]) => caller);
    return notAmong(`coalesce(payload->>'submittedBy', '')`, busy);
  }

  /** The callbacks queue's claim filter: receivers and callers at their share (or behind an open circuit) wait. */
  deliveryClaimFilter() {
    const receivers = notAmong(`coalesce(payload->>'receiver', '')`, this.deps.gate.blockedReceivers());
    const owners = notAmong(`coalesce(payload->>'submittedBy', '')`, this.deps.gate.blockedOwners());
    return { sql: receivers.sql + owners.sql, params: [...receivers.params, ...owners.params] };
  }

  /** A generation with `webhook`: validated, charged and queued; answered at once. */
  async submit(ctx: DomainContext, raw: unknown): Promise<QueuedGeneration> {
    const { webhook: rawHook, ...request } = (raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {}) as Record<string, unknown>;
    let hook!: WebhookTarget;
    const { hash } = await this.deps.generation.admitQueued(ctx, raw && typeof raw === 'object' ? request : raw, async () => {
      hook = parseInput(z.object({ webhook: WebhookTargetSchema }), { webhook: rawHook }).webhook;
      const headers = this.checkHeaders(hook.headers ?? {});
      hook = { ...hook, headers };
      try {
        await assertWebhookUrl(hook.url, this.deps.policy);
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        throw invalidWebhook('webhook.url', err.fields?.[0]?.message ?? err.message, err.details ?? {});
      }
    });
    const secret = hook.secret ?? `whsec_${randomBytes(24).toString('hex')}`;
    const payload: GenerateJobPayload = { hash, request, webhook: { url: hook.url, headers: hook.headers ?? {}, secret }, submittedBy: callerOf(ctx) };
    const em = this.deps.rootEm.fork();
    this.deps.jobs.enqueue(em, GENERATE_JOB, payload as unknown as Record<string, unknown>, { maxAttempts: GENERATE_ATTEMPTS });
    await em.flush();
    this.deps.jobs.kick();
    return { hash, status: 'queued', statusUrl: this.deps.links.generationStatus(hash), ...(hook.secret ? {} : { webhookSecret: secret }) };
  }

  private checkHeaders(headers: Record<string, string>): Record<string, string> {
    const entries = Object.entries(headers);
    if (entries.length > MAX_HEADERS) throw invalidWebhook('webhook.headers', `at most ${MAX_HEADERS} headers`);
    const out: Record<string, string> = {};
    for (const [name, value] of entries) {
      if (!HEADER_NAME.test(name)) throw invalidWebhook(`webhook.headers.${name.slice(0, 100)}`, 'is not a valid header name');
      if (RESERVED_WEBHOOK_HEADERS.has(name.toLowerCase())) {
        throw invalidWebhook(`webhook.headers.${name}`, 'is set by the gateway (transport or signature) and cannot be given');
      }
      if (!HEADER_VALUE.test(value)) throw invalidWebhook(`webhook.headers.${name}`, 'must not contain control characters or line breaks');
      out[name] = value;
    }
    return out;
  }

  private async runGeneration(job: RunningJob) {
    const p = job.payload as unknown as GenerateJobPayload;
    // Counted before the first await, so the next claim of this poll already leaves this caller out.
    const caller = p.submittedBy ?? '';
    this.runningBy.set(caller, (this.runningBy.get(caller) ?? 0) + 1);
    try {
      await this.generateAndAnnounce(job, p);
    } finally {
      const n = (this.runningBy.get(caller) ?? 1) - 1;
      if (n > 0) this.runningBy.set(caller, n);
      else this.runningBy.delete(caller);
    }
  }

  private async generateAndAnnounce(job: RunningJob, p: GenerateJobPayload) {
    let body: GenerationWebhookBody;
    try {
      const r = await this.deps.generation.generateQueued(p.request);
      body = { hash: r.hash, audioUrl: r.audioUrl, duration: r.duration, cached: r.cached, metadata: r.metadata };
    } catch (err) {
      // Interrupted by a shutdown: back to the queue for this or another instance.
      if (this.stopping || this.deps.generation.closing) throw err;
      // Upstream trouble and overload may pass; a refusal (bad request, provider not set up) will not.
      const transient = !(err instanceof DomainError) || mayPassOnRetry(err);
      if (transient && job.attempt < job.maxAttempts) throw err;
      body = {
        hash: p.hash,
        error: err instanceof DomainError ? { code: err.code, message: err.message } : { code: 'INTERNAL_ERROR', message: 'Generation failed' },
      };
    }
    await this.enqueueDelivery(job.id, p, body);
  }

  /** At most one delivery per generation job, even if that job is run again after a crash. */
  private async enqueueDelivery(generationJobId: string, p: GenerateJobPayload, body: GenerationWebhookBody) {
    const em = this.deps.rootEm.fork();
    const existing = await em
      .getConnection()
      .execute<{ id: string }[]>(`select id from jobs where type = ? and payload->>'generationJobId' = ? limit 1`, [DELIVER_JOB, generationJobId]);
    if (existing.length) return;
    const payload: DeliverJobPayload = {
      hash: p.hash,
      generationJobId,
      receiver: receiverOf(p.webhook.url),
      submittedBy: p.submittedBy ?? null,
      url: p.webhook.url,
      headers: p.webhook.headers,
      secret: p.webhook.secret,
      body,
    };
    const queue = this.deps.deliveries ?? this.deps.jobs;
    queue.enqueue(em, DELIVER_JOB, payload as unknown as Record<string, unknown>, { maxAttempts: DELIVERY_ATTEMPTS });
    await em.flush();
    queue.kick();
  }

  private async runDelivery(job: RunningJob) {
    const p = job.payload as unknown as DeliverJobPayload;
    // Taken before the first await (see runGeneration); refused: back to the queue, uncounted.
    const pass = this.deps.gate.enter(p.submittedBy ?? '', p.receiver ?? receiverOf(p.url));
    if (!pass) throw new JobDeferred(DEFER_MS);
    let outcome: 'ok' | 'failed' | 'none' = 'failed';
    try {
      const status = await postSigned({
        url: p.url,
        secret: p.secret,
        deliveryId: job.id,
        body: JSON.stringify(p.body),
        extraHeaders: p.headers,
        policy: this.deps.policy,
        // Shorter once the receiver has failed repeatedly.
        timeoutMs: pass.timeoutMs,
        userAgent: 'speech-gateway-webhooks/1',
      });
      // Anything but 2xx is retried by the job queue with exponential backoff.
      if (status < 200 || status >= 300) throw new Error(`receiver answered ${status}`);
      outcome = 'ok';
    } catch (err) {
      // A refused address is the URL's fault, not the receiver's health.
      if ((err as { code?: string })?.code === 'EPRIVATEADDRESS' || err instanceof DomainError) outcome = 'none';
      throw err;
    } finally {
      pass.done(outcome);
    }
  }

  /** The latest asynchronous generation of that audio. */
  async status(ctx: DomainContext, hash: string): Promise<GenerationStatus> {
    const existing = await this.deps.generation.existingGeneration(ctx, hash);
    const conn = ctx.em.getConnection();
    const [gen] = await conn.execute<JobRow[]>(
      `select id, status, attempts, last_error, created_at, finished_at, payload from jobs where type = ? and payload->>'hash' = ? order by created_at desc limit 1`,
      [GENERATE_JOB, hash],
    );
    const statusUrl = this.deps.links.generationStatus(hash);
    if (!gen) {
      if (!existing) throw new DomainError('NOT_FOUND', `No generation of '${hash}' is known`, { details: { hash } });
      // Made synchronously (or long ago): it is there.
      return {
        hash,
        status: 'completed',
        statusUrl,
        submittedAt: null,
        finishedAt: existing.metadata.generatedAt,
        attempts: 0,
        ...this.resultOf(existing),
        webhook: null,
      };
    }
    const [delivery] = await conn.execute<JobRow[]>(
      `select id, status, attempts, last_error, created_at, finished_at, payload from jobs where type = ? and payload->>'generationJobId' = ? limit 1`,
      [DELIVER_JOB, gen.id],
    );
    const base = { hash, statusUrl, submittedAt: iso(gen.created_at), attempts: gen.attempts };
    const submittedBy = payloadOf<GenerateJobPayload>(gen).submittedBy ?? null;
    const ownWebhook = submittedBy !== null && submittedBy === callerOf(ctx);
    const webhook = delivery
      ? {
          status: delivery.status === 'done' ? ('delivered' as const) : delivery.status === 'failed' ? ('failed' as const) : ('pending' as const),
          attempts: delivery.attempts,
          lastError: ownWebhook ? delivery.last_error : null,
        }
      : { status: 'pending' as const, attempts: 0, lastError: null };
    if (delivery) {
      const body = payloadOf<DeliverJobPayload>(delivery).body;
      if ('error' in body) return { ...base, status: 'failed', finishedAt: iso(delivery.created_at), error: body.error, webhook };
      return {
        ...base,
        status: 'completed',
        finishedAt: iso(delivery.created_at),
        audioUrl: body.audioUrl,
        duration: body.duration,
        cached: body.cached,
        metadata: body.metadata,
        webhook,
      };
    }
    if (gen.status === 'failed') {
      return {
        ...base,
        status: 'failed',
        finishedAt: iso(gen.finished_at),
        error: { code: 'GENERATION_FAILED', message: gen.last_error ?? 'Generation failed' },
        webhook: null,
      };
    }
    return { ...base, status: gen.status === 'running' ? 'running' : 'queued', finishedAt: null, webhook };
  }

  private resultOf(r: GenerationResponse) {
    return { audioUrl: r.audioUrl, duration: r.duration, cached: r.cached, metadata: r.metadata };
  }

  /** Called first on shutdown: a generation interrupted from here on goes back to the queue. */
  beginStop() {
    this.stopping = true;
  }
}

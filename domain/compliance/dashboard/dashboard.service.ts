import type { ScoreParts } from '../status/scoring';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { requirePermission } from '../../auth/principal';
import type { DomainContext } from '../../context';
import { SERVICE_VERSION, type HealthService } from '../../health';
import { parseInput } from '../../validation';
import { Activity } from '../activity/activity.entity';
import { activityFor } from '../event-access';
import { SUPPORTED_FRAMEWORKS } from '../catalogue';
import { precheckFramework } from '../frameworks.service';
import type { Measurement } from '../status/measurement';
import { NOT_DELETED_SQL } from '../requirements/requirement.entity';
import { averageOf, HISTORY_METRICS, HISTORY_PERIODS, periodStart, trendOf, type DataPoint, type HistoryMetric, type Trend } from './history';
import { clock } from '../../clock';

export const PROJECT_NAME = 'Compliance Management Platform';
/** Who counts as an active user: anyone with recorded activity this recently. */
export const ACTIVE_USER_WINDOW_MS = 15 * 60_000;
const PROBE_INTERVAL_MS = 30_000;

export interface DashboardMetrics {
  project: { name: string; version: string; lastUpdated: string };
  /** `unassigned`: of `total`, those not yet assigned to a framework (in no framework's score). */
  requirements: { total: number; completed: number; inProgress: number; pending: number; completionRate: number; unassigned: number };
  compliance: { frameworks: { name: string; score: number; status: string; lastAssessed: string | null; scoring: ScoreParts }[]; overallScore: number };
}

export const DASHBOARD_STATES = ['healthy', 'degraded'] as const;

export interface DashboardStatus {
  status: (typeof DASHBOARD_STATES)[number];
  uptime: string;
  lastActivity: string | null;
  activeUsers: number;
  systemHealth: { validation: string; compliance: string; monitoring: string };
  recentActivity: { timestamp: string; type: string; user: string; userKeyId: string | null; description: string }[];
}

export interface DashboardHistory {
  metric: HistoryMetric;
  period: string;
  framework: string | null;
  dataPoints: DataPoint[];
  trend: Trend;
  averageValue: number;
}

export const HistoryQuery = z.object({
  period: z.enum(HISTORY_PERIODS).default('30d'),
  metric: z.enum(HISTORY_METRICS).default('compliance_score'),
  framework: z.enum(SUPPORTED_FRAMEWORKS as unknown as [string, ...string[]]).optional(),
});

/** The snapshot column of each metric (fixed names: the only text put into the history statement). */
const METRIC_SQL_COLUMN: Record<HistoryMetric, string> = {
  compliance_score: 'compliance_score',
  requirement_completion: 'requirement_completion',
  validation_rate: 'validation_rate',
};

/**
 * The dashboard: current metrics (from the same measurement as the compliance status), system
 * status, and history from recorded snapshots.
 *
 * `uptime` is the share of this process's database probes (one every 30 s, plus one per status
 * read) that succeeded since it started: what the dashboard can honestly observe about itself.
 */
export class DashboardService {
  private probes = 0;
  private probesOk = 0;
  private lastProbeAt = 0;
  private lastProbeOk = true;
  private probeTimer: NodeJS.Timeout | null = null;
  private readonly startedAt = clock.now();

  constructor(private readonly deps: { health: HealthService; measure: (em: EntityManager) => Promise<Measurement> }) {}

  start() {
    void this.probe();
    this.probeTimer = setInterval(() => void this.probe(), PROBE_INTERVAL_MS);
    this.probeTimer.unref();
  }

  stop() {
    if (this.probeTimer) clearInterval(this.probeTimer);
    this.probeTimer = null;
  }

  /** Whether the database answered the last probe (the gateway raises `system_alert` on changes). */
  get databaseUp() {
    return this.lastProbeOk;
  }

  async probe(): Promise<boolean> {
    const ok = await this.deps.health.databaseReachable();
    this.probes++;
    if (ok) this.probesOk++;
    this.lastProbeAt = clock.nowMs();
    this.lastProbeOk = ok;
    return ok;
  }

  async metrics(ctx: DomainContext): Promise<DashboardMetrics> {
    requirePermission(ctx, 'read:dashboard');
    const m = await this.deps.measure(ctx.em);
    const conn = ctx.em.getConnection();
    const [updated] = await conn.execute<{ at: Date | string | null }[]>(`select max(updated_at) as at from requirements where ${NOT_DELETED_SQL}`, [], 'all');
    const assessed = await conn.execute<{ framework: string; at: Date | string }[]>(
      'select framework, max(taken_at) as at from metric_snapshots where framework is not null group by framework',
      [],
      'all',
    );
    const lastAssessed = new Map(assessed.map((r) => [r.framework, new Date(r.at).toISOString()]));
    return {
      project: { name: PROJECT_NAME, version: SERVICE_VERSION, lastUpdated: (updated?.at ? new Date(updated.at) : this.startedAt).toISOString() },
      requirements: {
        total: m.overall.total,
        completed: m.overall.completed,
        inProgress: m.overall.inProgress,
        pending: m.overall.pending,
        completionRate: m.overall.completionRate,
        unassigned: m.unassigned,
      },
      compliance: {
        frameworks: SUPPORTED_FRAMEWORKS.map((f) => ({
          name: f,
          score: m.frameworks[f].score,
          status: m.frameworks[f].status,
          lastAssessed: lastAssessed.get(f) ?? null,
          scoring: m.frameworks[f].parts!,
        })),
        overallScore: m.overall.score,
      },
    };
  }

  async status(ctx: DomainContext): Promise<DashboardStatus> {
    const principal = requirePermission(ctx, 'read:dashboard');
    const databaseUp = await this.probe();
    let recent: Activity[] = [];
    let activeUsers = 0;
    if (databaseUp) {
      recent = await ctx.em.find(Activity, {}, { orderBy: { at: 'desc', id: 'desc' }, limit: 10 });
      const [row] = await ctx.em
        .getConnection()
        // Counted by key id: two keys with one name are two users. Rows from before key ids were kept count by name.
        .execute<{ n: number }[]>(
          `select count(distinct coalesce(user_key_id, 'name:' || "user"))::int as n from activity_log where at > ?`,
          [new Date(clock.nowMs() - ACTIVE_USER_WINDOW_MS)],
          'all',
        );
      activeUsers = Number(row?.n ?? 0);
    }
    const monitoringFresh = this.probeTimer !== null && clock.nowMs() - this.lastProbeAt <= 2 * PROBE_INTERVAL_MS;
    return {
      status: databaseUp ? 'healthy' : 'degraded',
      uptime: `${((100 * this.probesOk) / Math.max(1, this.probes)).toFixed(2)}%`,
      lastActivity: recent[0]?.at.toISOString() ?? null,
      activeUsers,
      systemHealth: {
        validation: 'operational', // the validation engine runs in-process and needs nothing external
        compliance: databaseUp ? 'operational' : 'down',
        monitoring: monitoringFresh ? 'operational' : 'degraded',
      },
      // Titles of requirements and findings only for keys that may read them.
      recentActivity: recent.map((a) => {
        const shown = activityFor(principal, { type: a.type, description: a.description, subjectId: a.subjectId ?? null });
        return { timestamp: a.at.toISOString(), type: a.type, user: a.user, userKeyId: a.userKeyId ?? null, description: shown.description };
      }),
    };
  }

  async history(ctx: DomainContext, raw: unknown): Promise<DashboardHistory> {
    requirePermission(ctx, 'read:dashboard');
    precheckFramework(raw);
    const q = parseInput(HistoryQuery, stripEmpty(raw));
    // Bucketed in SQL (the last reading of each UTC day, or of each ISO week for a year),
    // so any number of snapshots costs one row per bucket, never a row cap.
    const unit = q.period === '1y' ? 'week' : 'day';
    const params: unknown[] = [periodStart(q.period)];
    if (q.framework) params.push(q.framework);
    const rows = await ctx.em.getConnection().execute<{ bucket_ms: number | string; value: number | string }[]>(
      `select distinct on (bucket) (extract(epoch from bucket) * 1000)::float8 as bucket_ms, value
         from (select date_trunc('${unit}', taken_at at time zone 'UTC') as bucket, taken_at, id, ${METRIC_SQL_COLUMN[q.metric]} as value
                 from metric_snapshots
                where taken_at >= ? and framework ${q.framework ? '= ?' : 'is null'}) s
        order by bucket, taken_at desc, id desc`,
      params,
      'all',
      ctx.em.getTransactionContext(),
    );
    const dataPoints: DataPoint[] = rows.map((r) => ({
      timestamp: new Date(Number(r.bucket_ms)).toISOString(),
      value: Math.round(Number(r.value) * 100) / 100,
    }));
    return { metric: q.metric, period: q.period, framework: q.framework ?? null, dataPoints, trend: trendOf(dataPoints), averageValue: averageOf(dataPoints) };
  }
}

/** Query strings send `?framework=` for "all frameworks"; an empty framework counts as absent. */
function stripEmpty(raw: unknown): Record<string, unknown> {
  if (!raw || typeof raw !== 'object') return {};
  return Object.fromEntries(Object.entries(raw as Record<string, unknown>).filter(([k, v]) => v !== undefined && !(k === 'framework' && v === '')));
}

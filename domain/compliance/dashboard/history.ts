import { clock } from '../../clock';
/**
 * Pure history maths: periods and naming a trend. (Bucketing — the last reading of each UTC day, or
 * ISO week for a year — is done by the database: dashboard.service.ts.)
 */

export const HISTORY_PERIODS = ['7d', '30d', '90d', '1y'] as const;
export type HistoryPeriod = (typeof HISTORY_PERIODS)[number];
export const HISTORY_METRICS = ['compliance_score', 'requirement_completion', 'validation_rate'] as const;
export type HistoryMetric = (typeof HISTORY_METRICS)[number];
export type Trend = 'increasing' | 'decreasing' | 'stable';
export const TRENDS: readonly Trend[] = ['increasing', 'decreasing', 'stable'];

const DAY_MS = 86_400_000;
export const PERIOD_DAYS: Record<HistoryPeriod, number> = { '7d': 7, '30d': 30, '90d': 90, '1y': 365 };

/** A change smaller than this per day (in metric points, i.e. percent) counts as flat. */
export const TREND_EPSILON_PER_DAY = 0.01;

export interface DataPoint {
  timestamp: string;
  value: number;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** Least-squares slope of value over time (per day); its sign, beyond a small epsilon, is the trend. */
export function trendOf(points: DataPoint[]): Trend {
  if (points.length < 2) return 'stable';
  const xs = points.map((p) => Date.parse(p.timestamp) / DAY_MS);
  const ys = points.map((p) => p.value);
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0;
  let den = 0;
  for (let i = 0; i < xs.length; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  if (den === 0) return 'stable';
  const slope = num / den;
  if (slope > TREND_EPSILON_PER_DAY) return 'increasing';
  if (slope < -TREND_EPSILON_PER_DAY) return 'decreasing';
  return 'stable';
}

export function averageOf(points: DataPoint[]): number {
  if (!points.length) return 0;
  return round2(points.reduce((a, p) => a + p.value, 0) / points.length);
}

export function periodStart(period: HistoryPeriod, now = clock.now()): Date {
  return new Date(now.getTime() - PERIOD_DAYS[period] * DAY_MS);
}

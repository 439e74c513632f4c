import { clock } from '../../clock';
/**
 * Pure history maths: bucketing snapshots and naming their trend. Kept apart from the service so
 * the rules are easy to read and to test.
 */

export const HISTORY_PERIODS = ['7d', '30d', '90d', '1y'] as const;
export type HistoryPeriod = (typeof HISTORY_PERIODS)[number];
export const HISTORY_METRICS = ['compliance_score', 'requirement_completion', 'validation_rate'] as const;
export type HistoryMetric = (typeof HISTORY_METRICS)[number];
export type Trend = 'increasing' | 'decreasing' | 'stable';

const DAY_MS = 86_400_000;
export const PERIOD_DAYS: Record<HistoryPeriod, number> = { '7d': 7, '30d': 30, '90d': 90, '1y': 365 };

/** A change smaller than this per day (in metric points, i.e. percent) counts as flat. */
export const TREND_EPSILON_PER_DAY = 0.01;

export interface DataPoint {
  timestamp: string;
  value: number;
}

/** Start of the UTC day; for weekly buckets, of the ISO week (Monday). */
export function bucketStart(at: Date, weekly: boolean): Date {
  const day = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
  if (!weekly) return day;
  const sinceMonday = (day.getUTCDay() + 6) % 7;
  return new Date(day.getTime() - sinceMonday * DAY_MS);
}

/** One point per bucket (day, or week for a year): the last reading in that bucket, oldest first. */
export function bucketLast(readings: { at: Date; value: number }[], weekly: boolean): DataPoint[] {
  const last = new Map<number, { at: Date; value: number }>();
  for (const r of readings) {
    const key = bucketStart(r.at, weekly).getTime();
    const seen = last.get(key);
    if (!seen || r.at.getTime() >= seen.at.getTime()) last.set(key, r);
  }
  return [...last.entries()].sort(([a], [b]) => a - b).map(([key, r]) => ({ timestamp: new Date(key).toISOString(), value: round2(r.value) }));
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

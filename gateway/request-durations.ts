import type client from 'prom-client';

/** Upper bounds of the duration buckets, in seconds. */
export const DURATION_BUCKETS: readonly number[] = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * What prom-client's histograms answer from `get()` at run time, the shape its registry reads (its
 * typings say a numeric `type`; the objects carry the text, as here).
 */
interface HistogramData {
  name: string;
  help: string;
  type: 'histogram';
  values: { labels: Record<string, string | number>; value: number; metricName: string; exemplar?: null }[];
  aggregator: client.Aggregator;
}

interface Series {
  route: string;
  method: string;
  /** Observations per bucket (not cumulative); the last slot is above every bound. */
  counts: Float64Array;
  sum: number;
  count: number;
}

/**
 * `http_request_duration_seconds`: every answered request's duration by route and method, as a
 * Prometheus histogram, counted here and read by prom-client's registry at scrape time.
 *
 * Why not prom-client's own Histogram: its `observe` converts, validates and hashes the label set on
 * every call (a child from `labels()` too), and keys buckets by the bound's text; observed once per
 * request, that was the largest single cost of a cache-hit answer after node's own (0.5 µs of ~20,
 * CPU profile). prom-client has no API for values counted elsewhere (its issue #241), so this is a
 * seam: an object the registry takes through `registerMetric` and reads through `get()`, as it reads
 * its own metrics. tests/unit/request-durations.test.ts compares the registry's text for this and for
 * a prom-client Histogram given the same observations, and fails when a prom-client version reads or
 * prints metrics differently.
 */
export class RequestDurations {
  readonly name = 'http_request_duration_seconds';
  readonly help = 'HTTP request duration by route and method';
  readonly type = 'histogram' as const;
  readonly aggregator: client.Aggregator = 'sum';
  /** route → method → series; `order` keeps them in the order first seen, as prom-client prints them. */
  private readonly byRoute = new Map<string, Map<string, Series>>();
  private order: Series[] = [];

  /** Registers the histogram in `registry` (see the class comment for why it is not prom-client's). */
  register(registry: client.Registry): this {
    registry.registerMetric(this as unknown as client.Metric);
    return this;
  }

  observe(route: string, method: string, seconds: number): void {
    let byMethod = this.byRoute.get(route);
    if (byMethod === undefined) this.byRoute.set(route, (byMethod = new Map()));
    let series = byMethod.get(method);
    if (series === undefined) {
      series = { route, method, counts: new Float64Array(DURATION_BUCKETS.length + 1), sum: 0, count: 0 };
      byMethod.set(method, series);
      this.order.push(series);
    }
    let i = 0;
    while (i < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[i]) i++;
    series.counts[i]++;
    series.sum += seconds;
    series.count++;
  }

  /** prom-client's shape for a histogram's values: cumulative buckets, `+Inf`, `_sum`, `_count` per series. */
  get(): Promise<HistogramData> {
    const values: HistogramData['values'] = [];
    const bucket = `${this.name}_bucket`;
    for (const s of this.order) {
      let cumulative = 0;
      for (let i = 0; i < DURATION_BUCKETS.length; i++) {
        cumulative += s.counts[i];
        values.push({ labels: { le: DURATION_BUCKETS[i], route: s.route, method: s.method }, value: cumulative, metricName: bucket, exemplar: null });
      }
      values.push({ labels: { le: '+Inf', route: s.route, method: s.method }, value: s.count, metricName: bucket, exemplar: null });
      values.push({ labels: { route: s.route, method: s.method }, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { route: s.route, method: s.method }, value: s.count, metricName: `${this.name}_count` });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator });
  }

  /** `registry.resetMetrics()`. */
  reset(): void {
    this.byRoute.clear();
    this.order = [];
  }
}

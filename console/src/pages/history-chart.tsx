import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/** A line chart of one metric over time (uPlot); the caller gives a text summary beside it. */
export function HistoryChart(props: { points: { timestamp: string; value: number }[]; label: string; days: number }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el || props.points.length === 0) return;
    const xs = props.points.map((p) => Date.parse(p.timestamp) / 1000);
    const ys = props.points.map((p) => p.value);
    const size = () => ({ width: Math.max(240, el.clientWidth), height: 220 });
    // The whole period on the x axis, however few points it has so far.
    const now = Date.now() / 1000;
    const from = now - props.days * 86_400;
    const chart = new uPlot(
      {
        ...size(),
        scales: { x: { time: true, range: () => [Math.min(from, xs[0]), Math.max(now, xs[xs.length - 1])] }, y: { range: [0, 100] } },
        series: [{}, { label: props.label, stroke: '#1d4ed8', width: 2, fill: 'rgba(29, 78, 216, 0.08)', points: { show: props.points.length < 40 } }],
        axes: [{}, { values: (_u, ticks) => ticks.map((t) => `${t}%`) }],
        legend: { show: false },
      },
      [xs, ys],
      el,
    );
    const observer = new ResizeObserver(() => chart.setSize(size()));
    observer.observe(el);
    return () => {
      observer.disconnect();
      chart.destroy();
    };
  }, [props.points, props.label, props.days]);
  if (props.points.length === 0) return <p class="hint">No data points in this period yet.</p>;
  return (
    <div
      class="chart"
      ref={box}
      role="img"
      aria-label={`${props.label}: ${props.points.length} points, last ${props.points[props.points.length - 1].value}%`}
    />
  );
}

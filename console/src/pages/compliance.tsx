import { useEffect, useState } from 'preact/hooks';
import { gql } from '../api';
import {
  ComplianceStatusViewDocument,
  DashboardStatusViewDocument,
  HistoryDocument,
  type DashboardStatusViewQuery,
  type FrameworkId,
  type HistoryMetric,
  type HistoryPeriod,
} from '../generated/graphql';
import { FRAMEWORKS, frameworkName, HISTORY_METRICS, HISTORY_PERIODS, eventName, show } from '../catalogue';
import { ErrorNote, formatTime, Section, Select, useLoad } from '../ui';
import { useCan, useLiveEvents, type LiveEvent } from '../viewer';
import { HistoryChart } from './history-chart';

import { PERIOD_DAYS, useDebouncedReload } from './compliance-shared';
import { Requirements } from './compliance-requirements';
import { Findings } from './compliance-findings';
import { Reports } from './compliance-reports';

export function CompliancePage(props: { feed: LiveEvent[]; feedError: unknown }) {
  const can = useCan();
  return (
    <div class="page">
      <h1>Compliance</h1>
      {can('READ_COMPLIANCE') ? <Scores /> : null}
      {can('READ_DASHBOARD') ? <History /> : null}
      {can('READ_REQUIREMENTS') ? <Requirements /> : null}
      {can('READ_AUDITS') ? <Findings /> : null}
      {can('READ_COMPLIANCE') || can('WRITE_COMPLIANCE') ? <Reports /> : null}
      {can('READ_DASHBOARD') ? <Activity feed={props.feed} feedError={props.feedError} /> : null}
    </div>
  );
}

// ---------- scores ----------

function Scores() {
  const { data, error, reload } = useLoad(() => gql(ComplianceStatusViewDocument), []);
  const later = useDebouncedReload(reload);
  useLiveEvents(['REQUIREMENT_', 'COMPLIANCE_', 'FINDING_', 'VALIDATION_'], later);
  const status = data?.complianceStatus;
  return (
    <Section title="Scores" id="scores">
      <ErrorNote error={error} />
      {status ? (
        <>
          <p class="overall">
            Overall score <strong data-testid="overall-score">{status.overallScore}%</strong>
          </p>
          <ul class="score-grid">
            {status.frameworks.map((f) => (
              <li key={f.framework} class={`score-card status-${show(f.status)}`} data-testid={`score-${show(f.framework)}`}>
                <h3>{frameworkName(f.framework)}</h3>
                <p class="score" aria-label={`${frameworkName(f.framework)} score`}>
                  <span data-testid="score-value">{f.score}</span>%
                </p>
                <p class="status-label">{show(f.status).replace(/-/g, ' ')}</p>
                <p class="counts">
                  {f.requirements.completed} done · {f.requirements.inProgress} in progress · {f.requirements.pending} pending
                </p>
                <p class="counts">
                  implementation {f.scoring.implementation} · validation {f.scoring.validation} · clauses covered {f.scoring.coverage.covered}/
                  {f.scoring.coverage.clauses}
                  {f.scoring.findings.penalty ? ` · findings −${f.scoring.findings.penalty}` : ''}
                  {f.scoring.findings.cap != null ? ` (capped at ${f.scoring.findings.cap})` : ''}
                </p>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </Section>
  );
}

// ---------- history ----------

function History() {
  const [period, setPeriod] = useState<HistoryPeriod>('LAST_30_DAYS');
  const [metric, setMetric] = useState<HistoryMetric>('COMPLIANCE_SCORE');
  const [framework, setFramework] = useState<FrameworkId | ''>('');
  const { data, error, reload } = useLoad(() => gql(HistoryDocument, { period, metric, framework: framework || undefined }), [period, metric, framework]);
  const later = useDebouncedReload(reload, 1000);
  useLiveEvents(['COMPLIANCE_SCORE_CHANGED'], later);
  const h = data?.dashboardHistory;
  const label = HISTORY_METRICS.find(([m]) => m === metric)?.[1] ?? metric;
  return (
    <Section title="History" id="history">
      <div class="filters">
        <fieldset class="segmented">
          <legend>Period</legend>
          {HISTORY_PERIODS.map(([p, text]) => (
            <label key={p}>
              <input type="radio" name="history-period" value={p} checked={period === p} onChange={() => setPeriod(p)} />
              {text}
            </label>
          ))}
        </fieldset>
        <Select id="history-metric" label="Metric" value={metric} options={HISTORY_METRICS} onChange={(v) => setMetric(v as HistoryMetric)} />
        <Select
          id="history-framework"
          label="Framework"
          value={framework}
          options={[['', 'all'], ...FRAMEWORKS]}
          onChange={(v) => setFramework(v as FrameworkId | '')}
        />
      </div>
      <ErrorNote error={error} />
      {h ? (
        h.dataPoints.length < 2 ? (
          // One reading (a new project's first day) is a dot, not a trend: say so instead of drawing it.
          <div class="empty" data-testid="history-empty">
            <p>
              <strong>Not enough history yet.</strong> The chart starts once there are readings on two different {period === 'LAST_YEAR' ? 'weeks' : 'days'}; a
              reading is taken each day.
            </p>
            <p class="hint">
              {label} over {HISTORY_PERIODS.find(([p]) => p === h.period)?.[1] ?? h.period}:{' '}
              {h.dataPoints.length ? `${h.dataPoints[0].value}% on ${new Date(h.dataPoints[0].timestamp).toLocaleDateString()}.` : 'no readings yet.'}
            </p>
          </div>
        ) : (
          <>
            <HistoryChart points={h.dataPoints} label={label} days={PERIOD_DAYS[period] ?? 30} />
            <p class="hint">
              {label} over {HISTORY_PERIODS.find(([p]) => p === h.period)?.[1] ?? h.period}: average {h.averageValue}%, trend {show(h.trend)},{' '}
              {h.dataPoints.length} points.
            </p>
          </>
        )
      ) : null}
    </Section>
  );
}

// ---------- requirements ----------

type ActivityEntry = DashboardStatusViewQuery['dashboardStatus']['recentActivity'][number];
const RECENT_ACTIVITY = 10;
const sameActivity = (a: ActivityEntry, b: ActivityEntry) => a.timestamp === b.timestamp && a.type === b.type && a.description === b.description;

function Activity(props: { feed: LiveEvent[]; feedError: unknown }) {
  const { data, error, reload } = useLoad(() => gql(DashboardStatusViewDocument), []);
  const later = useDebouncedReload(reload, 2000);
  useLiveEvents(['SYSTEM_'], later);
  const s = data?.dashboardStatus;
  // Recent activity is the loaded list plus each `user.activity` event as it arrives (the server
  // has already withheld what this key may not read), newest first.
  const [recent, setRecent] = useState<ActivityEntry[] | null>(null);
  useEffect(() => setRecent(s ? s.recentActivity : null), [s]);
  useLiveEvents(['USER_ACTIVITY'], (e) => {
    const d = e.data as Record<string, unknown>;
    const entry: ActivityEntry = {
      timestamp: String(d.timestamp ?? e.createdAt),
      type: String(d.type ?? ''),
      user: String(d.user ?? ''),
      description: String(d.description ?? ''),
    };
    setRecent((prev) => (prev && !prev.some((a) => sameActivity(a, entry)) ? [entry, ...prev].slice(0, RECENT_ACTIVITY) : prev));
  });
  return (
    <Section title="Activity and alerts" id="activity">
      <ErrorNote error={error} />
      <ErrorNote error={props.feedError} />
      {s ? (
        <p class="hint">
          System {show(s.status)} · compliance {s.systemHealth.compliance}, monitoring {s.systemHealth.monitoring}, validation {s.systemHealth.validation} ·
          database uptime {s.uptime}
        </p>
      ) : null}
      <h3>Live events</h3>
      <ol class="feed" aria-live="polite" data-testid="live-feed">
        {props.feed.map((e) => (
          <li key={e.id} class={e.type === 'SYSTEM_ALERT' ? 'alert' : ''}>
            <time dateTime={e.createdAt}>{new Date(e.createdAt).toLocaleTimeString()}</time> <code>{eventName(e.type)}</code> {describeEvent(e)}
          </li>
        ))}
        {props.feed.length === 0 ? <li class="hint">No changes since this page opened; they appear here as they happen.</li> : null}
      </ol>
      <h3>Recent activity</h3>
      <ol class="feed" aria-live="polite" data-testid="recent-activity">
        {(recent ?? []).map((a) => (
          <li key={a.timestamp + a.type + a.description}>
            <time dateTime={a.timestamp}>{formatTime(a.timestamp)}</time> {a.description} <small>by {a.user}</small>
          </li>
        ))}
        {recent && recent.length === 0 ? <li class="hint">No activity yet: changes to requirements and findings are listed here as they happen.</li> : null}
      </ol>
    </Section>
  );
}

function describeEvent(e: LiveEvent): string {
  const d = e.data as Record<string, string | number | null | undefined>;
  if (d.title) return String(d.title);
  if (d.description) return String(d.description);
  if (d.framework && d.score !== undefined) return `${frameworkName(String(d.framework))}: ${d.previousScore ?? '?'} → ${d.score}`;
  if (d.message) return String(d.message);
  if (d.reportId) return `report ${d.reportId}`;
  return '';
}

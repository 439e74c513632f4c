import { useEffect, useRef, useState } from 'preact/hooks';
import { download, gql } from '../api';
import {
  ChangeFindingDocument,
  ComplianceStatusViewDocument,
  CreateRequirementFormDocument,
  DashboardStatusViewDocument,
  FindingListDocument,
  HistoryDocument,
  RecordFindingDocument,
  ReportByIdDocument,
  RequestReportDocument,
  RequirementListDocument,
  UpdateRequirementFormDocument,
  ValidateRequirementActionDocument,
  type DashboardStatusViewQuery,
  type FindingRowFragment,
  type ReportRowFragment,
  type RequirementRowFragment,
  type FindingSeverity,
  type FrameworkId,
  type HistoryMetric,
  type HistoryPeriod,
  type Priority,
  type ReportFormat,
  type RequirementStatus,
  type ValidateRequirementActionMutation,
} from '../generated/graphql';
import {
  FINDING_STATUSES,
  FRAMEWORKS,
  frameworkName,
  HISTORY_METRICS,
  HISTORY_PERIODS,
  PRIORITIES,
  REPORT_FORMATS,
  REQUIREMENT_STATUSES,
  SEVERITIES,
  eventName,
  show,
} from '../catalogue';
import { ErrorNote, formatBytes, formatTime, Pager, Section, Select, TextField, useAction, useLoad } from '../ui';
import { useCan, useLiveEvents, type LiveEvent } from '../viewer';
import { HistoryChart } from './history-chart';

const ANY = [['', 'any']] as [string, string][];
const PERIOD_DAYS: Record<HistoryPeriod, number> = { LAST_7_DAYS: 7, LAST_30_DAYS: 30, LAST_90_DAYS: 90, LAST_YEAR: 365 };

/** Reloads after a burst of live events settles, so ten changes cost one request. */
function useDebouncedReload(reload: () => void, ms = 250): () => void {
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  return () => {
    clearTimeout(timer.current);
    timer.current = window.setTimeout(reload, ms);
  };
}

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
                  implementation {f.scoring.implementation} · validation {f.scoring.validation} · clauses covered {f.scoring.coverage.covered}/{f.scoring.coverage.clauses}
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
        <Select id="history-framework" label="Framework" value={framework} options={[['', 'all'], ...FRAMEWORKS]} onChange={(v) => setFramework(v as FrameworkId | '')} />
      </div>
      <ErrorNote error={error} />
      {h ? (
        h.dataPoints.length < 2 ? (
          // One reading (a new project's first day) is a dot, not a trend: say so instead of drawing it.
          <div class="empty" data-testid="history-empty">
            <p>
              <strong>Not enough history yet.</strong> The chart starts once there are readings on two different {period === 'LAST_YEAR' ? 'weeks' : 'days'}; a reading is taken each day.
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
              {label} over {HISTORY_PERIODS.find(([p]) => p === h.period)?.[1] ?? h.period}: average {h.averageValue}%, trend {show(h.trend)}, {h.dataPoints.length} points.
            </p>
          </>
        )
      ) : null}
    </Section>
  );
}

// ---------- requirements ----------

const PAGE_SIZE = 10;

function Requirements() {
  const can = useCan();
  const [filter, setFilter] = useState({ framework: '', status: '', priority: '' });
  const [offset, setOffset] = useState(0);
  const [editing, setEditing] = useState<RequirementRowFragment | 'new' | null>(null);
  const [validation, setValidation] = useState<{ req: RequirementRowFragment; result: ValidateRequirementActionMutation['validateRequirement'] } | null>(null);
  const clean = Object.fromEntries(Object.entries(filter).filter(([, v]) => v));
  const { data, error, reload } = useLoad(() => gql(RequirementListDocument, { filter: clean, limit: PAGE_SIZE, offset }), [JSON.stringify(clean), offset]);
  const later = useDebouncedReload(reload);
  useLiveEvents(['REQUIREMENT_', 'VALIDATION_'], later);
  const validate = useAction(async (req: RequirementRowFragment) => {
    const { validateRequirement } = await gql(ValidateRequirementActionDocument, { id: req.id });
    setValidation({ req, result: validateRequirement });
    reload();
  });
  const setF = (k: keyof typeof filter) => (v: string) => {
    setFilter({ ...filter, [k]: v });
    setOffset(0);
  };
  const page = data?.requirements;
  return (
    <Section
      title="Requirements"
      id="requirements"
      actions={
        can('WRITE_REQUIREMENTS') ? (
          <button type="button" class="primary" onClick={() => setEditing('new')} data-testid="new-requirement">
            New requirement
          </button>
        ) : null
      }
    >
      {editing ? (
        <RequirementForm
          initial={editing === 'new' ? null : editing}
          onDone={() => {
            setEditing(null);
            reload();
          }}
        />
      ) : null}
      <div class="filters" role="search" aria-label="Filter requirements">
        <Select id="req-framework" label="Framework" value={filter.framework} options={[...ANY, ...FRAMEWORKS]} onChange={setF('framework')} />
        <Select id="req-status" label="Status" value={filter.status} options={['', ...REQUIREMENT_STATUSES]} onChange={setF('status')} />
        <Select id="req-priority" label="Priority" value={filter.priority} options={['', ...PRIORITIES]} onChange={setF('priority')} />
      </div>
      <ErrorNote error={error} />
      <ErrorNote error={validate.error} />
      {page ? (
        <>
          <div class="table-wrap">
            <table data-testid="requirements-table">
              <caption class="sr-only">Requirements, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Title</th>
                  <th scope="col">Framework</th>
                  <th scope="col">Priority</th>
                  <th scope="col">Status</th>
                  <th scope="col">Validation</th>
                  {can('WRITE_REQUIREMENTS') ? <th scope="col">Actions</th> : null}
                </tr>
              </thead>
              <tbody>
                {page.data.map((r) => (
                  <tr key={r.id}>
                    <th scope="row">{r.title}</th>
                    <td>{r.framework ? frameworkName(r.framework) : 'unassigned'}</td>
                    <td>{show(r.priority)}</td>
                    <td>
                      <span class={`pill pill-${show(r.status)}`}>{show(r.status)}</span>
                    </td>
                    <td>{r.validation ? `${show(r.validation.status)} (${r.validation.score})` : '—'}</td>
                    {can('WRITE_REQUIREMENTS') ? (
                      <td class="row-actions">
                        <button type="button" onClick={() => setEditing(r)} aria-label={`Edit ${r.title}`}>
                          Edit
                        </button>
                        <button type="button" onClick={() => validate.run(r)} disabled={validate.busy} aria-label={`Validate ${r.title}`}>
                          Validate
                        </button>
                      </td>
                    ) : null}
                  </tr>
                ))}
                {page.data.length === 0 ? (
                  <tr>
                    <td colSpan={6}>
                      {Object.keys(clean).length
                        ? 'No requirements match these filters.'
                        : can('WRITE_REQUIREMENTS')
                          ? 'No requirements yet: add the first with “New requirement”.'
                          : 'No requirements yet.'}
                    </td>
                  </tr>
                ) : null}
              </tbody>
            </table>
          </div>
          <Pager label="Requirements" offset={offset} limit={PAGE_SIZE} total={page.pagination.total} onPage={setOffset} />
        </>
      ) : null}
      {validation ? <ValidationPanel title={validation.req.title} result={validation.result} onClose={() => setValidation(null)} /> : null}
    </Section>
  );
}

function ValidationPanel(props: { title: string; result: ValidateRequirementActionMutation['validateRequirement']; onClose: () => void }) {
  const r = props.result;
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [r]);
  return (
    <div class="panel" role="region" aria-labelledby="validation-title" data-testid="validation-result">
      <h3 id="validation-title" tabIndex={-1} ref={heading}>
        Validation of “{props.title}”: {r.valid ? 'valid' : 'not valid'}, score {r.score}
      </h3>
      <h4>Issues</h4>
      {r.issues.length ? (
        <ul>
          {r.issues.map((i) => (
            <li key={i.ruleId + i.field}>
              <span class={`pill sev-${show(i.severity)}`}>{show(i.severity)}</span> <code>{i.field}</code> {i.message} <small>({i.ruleId})</small>
            </li>
          ))}
        </ul>
      ) : (
        <p>No issues.</p>
      )}
      <h4>Suggestions</h4>
      {r.suggestions.length ? (
        <ul>
          {r.suggestions.map((s) => (
            <li key={s}>{s}</li>
          ))}
        </ul>
      ) : (
        <p>None.</p>
      )}
      <h4>Clause mapping</h4>
      <dl class="mapping">
        {Object.entries(r.complianceMapping).map(([fw, clauses]) => (
          <>
            <dt key={`${fw}-t`}>{frameworkName(fw)}</dt>
            <dd key={`${fw}-d`}>{Array.isArray(clauses) ? clauses.join(', ') || '—' : JSON.stringify(clauses)}</dd>
          </>
        ))}
      </dl>
      <button type="button" onClick={props.onClose}>
        Close
      </button>
    </div>
  );
}

function RequirementForm(props: { initial: RequirementRowFragment | null; onDone: () => void }) {
  const r = props.initial;
  const [title, setTitle] = useState(r?.title ?? '');
  const [description, setDescription] = useState(r?.description ?? '');
  const [framework, setFramework] = useState<FrameworkId>(r?.framework ?? 'GDPR');
  const [priority, setPriority] = useState<Priority>(r?.priority ?? 'MEDIUM');
  const [status, setStatus] = useState<RequirementStatus>(r?.status ?? 'PENDING');
  const [category, setCategory] = useState(r?.category ?? '');
  const [criteria, setCriteria] = useState((r?.acceptanceCriteria ?? []).join('\n'));
  const save = useAction(async () => {
    const acceptanceCriteria = criteria.split('\n').map((c) => c.trim()).filter(Boolean);
    const common = { title, description: description || null, framework, priority, category: category || null, acceptanceCriteria };
    if (r) await gql(UpdateRequirementFormDocument, { id: r.id, input: { ...common, status } });
    else await gql(CreateRequirementFormDocument, { input: common });
    props.onDone();
  });
  const first = useRef<HTMLDivElement>(null);
  useEffect(() => first.current?.querySelector('input')?.focus(), []);
  return (
    <form
      class="panel form-grid"
      aria-label={r ? `Edit requirement ${r.title}` : 'New requirement'}
      onSubmit={(e) => {
        e.preventDefault();
        void save.run();
      }}
    >
      <h3>{r ? 'Edit requirement' : 'New requirement'}</h3>
      <div ref={first} class="wide">
        <TextField id="req-title" label="Title" value={title} onInput={setTitle} required />
      </div>
      <Select id="req-form-framework" label="Framework" value={framework} options={FRAMEWORKS} onChange={(v) => setFramework(v as FrameworkId)} />
      <Select id="req-form-priority" label="Priority" value={priority} options={PRIORITIES} onChange={(v) => setPriority(v as Priority)} />
      {r ? <Select id="req-form-status" label="Status" value={status} options={REQUIREMENT_STATUSES} onChange={(v) => setStatus(v as RequirementStatus)} /> : null}
      <TextField id="req-category" label="Category" value={category} onInput={setCategory} />
      <div class="wide">
        <TextField id="req-description" label="Description" value={description} onInput={setDescription} multiline />
      </div>
      <div class="wide">
        <TextField id="req-criteria" label="Acceptance criteria (one per line)" value={criteria} onInput={setCriteria} multiline />
      </div>
      <ErrorNote error={save.error} />
      <div class="buttons wide">
        <button type="submit" class="primary" disabled={save.busy}>
          {r ? 'Save changes' : 'Create requirement'}
        </button>
        <button type="button" onClick={props.onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

// ---------- findings ----------

function Findings() {
  const can = useCan();
  const [status, setStatus] = useState('');
  const [severity, setSeverity] = useState('');
  const [offset, setOffset] = useState(0);
  const [recording, setRecording] = useState(false);
  const filter = Object.fromEntries(Object.entries({ status, severity }).filter(([, v]) => v));
  const { data, error, reload } = useLoad(() => gql(FindingListDocument, { filter, limit: PAGE_SIZE, offset }), [status, severity, offset]);
  const later = useDebouncedReload(reload);
  useLiveEvents(['FINDING_'], later);
  const page = data?.findings;
  return (
    <Section
      title="Audit findings"
      id="findings"
      actions={
        can('WRITE_AUDITS') ? (
          <button type="button" class="primary" onClick={() => setRecording(true)}>
            Record finding
          </button>
        ) : null
      }
    >
      {recording ? (
        <FindingForm
          onDone={() => {
            setRecording(false);
            reload();
          }}
        />
      ) : null}
      <div class="filters" role="search" aria-label="Filter findings">
        <Select id="finding-status" label="Status" value={status} options={['', ...FINDING_STATUSES]} onChange={(v) => (setStatus(v), setOffset(0))} />
        <Select id="finding-severity" label="Severity" value={severity} options={['', ...SEVERITIES]} onChange={(v) => (setSeverity(v), setOffset(0))} />
      </div>
      <ErrorNote error={error} />
      {page ? (
        <>
          <ul class="findings">
            {page.data.map((f) => (
              <FindingItem key={f.id} finding={f} onChanged={reload} />
            ))}
            {page.data.length === 0 ? <li class="hint">{Object.keys(filter).length ? 'No findings match these filters.' : 'No audit findings recorded yet.'}</li> : null}
          </ul>
          <Pager label="Findings" offset={offset} limit={PAGE_SIZE} total={page.pagination.total} onPage={setOffset} />
        </>
      ) : null}
    </Section>
  );
}

function FindingItem({ finding: f, onChanged }: { finding: FindingRowFragment; onChanged: () => void }) {
  const can = useCan();
  const [evidence, setEvidence] = useState('');
  const [resolution, setResolution] = useState('');
  const change = useAction(async (input: Record<string, unknown>) => {
    await gql(ChangeFindingDocument, { id: f.id, input });
    setEvidence('');
    setResolution('');
    onChanged();
  });
  return (
    <li class="finding">
      <h3>
        <span class={`pill sev-${show(f.severity)}`}>{show(f.severity)}</span> {f.title} <span class={`pill pill-${show(f.status)}`}>{show(f.status)}</span>
      </h3>
      <p class="hint">
        {frameworkName(f.framework)} · discovered {formatTime(f.discoveredAt)}
        {f.resolvedAt ? ` · resolved ${formatTime(f.resolvedAt)}` : ''}
      </p>
      {f.description ? <p>{f.description}</p> : null}
      {f.evidence.length ? (
        <>
          <p class="hint">Evidence</p>
          <ul class="evidence">
            {f.evidence.map((e, i) => (
              <li key={i}>{e}</li>
            ))}
          </ul>
        </>
      ) : null}
      {f.resolution ? <p>Resolution: {f.resolution}</p> : null}
      {can('WRITE_AUDITS') ? (
        <div class="finding-actions">
          <form
            class="inline"
            onSubmit={(e) => {
              e.preventDefault();
              if (evidence.trim()) void change.run({ evidence: [evidence.trim()] });
            }}
          >
            <TextField id={`evidence-${f.id}`} label="Attach evidence" value={evidence} onInput={setEvidence} placeholder="Link or note" />
            <button type="submit" disabled={change.busy || !evidence.trim()}>
              Attach
            </button>
          </form>
          {f.status !== 'RESOLVED' ? (
            <form
              class="inline"
              onSubmit={(e) => {
                e.preventDefault();
                void change.run({ status: 'RESOLVED', resolution: resolution.trim() || undefined });
              }}
            >
              <TextField id={`resolution-${f.id}`} label="Resolution" value={resolution} onInput={setResolution} />
              <button type="submit" disabled={change.busy}>
                Resolve
              </button>
            </form>
          ) : (
            <button type="button" onClick={() => change.run({ status: 'OPEN' })} disabled={change.busy}>
              Reopen
            </button>
          )}
          <ErrorNote error={change.error} />
        </div>
      ) : null}
    </li>
  );
}

function FindingForm(props: { onDone: () => void }) {
  const [title, setTitle] = useState('');
  const [framework, setFramework] = useState<FrameworkId>('GDPR');
  const [severity, setSeverity] = useState<FindingSeverity>('MEDIUM');
  const [description, setDescription] = useState('');
  const [evidence, setEvidence] = useState('');
  const save = useAction(async () => {
    const ev = evidence.split('\n').map((e) => e.trim()).filter(Boolean);
    await gql(RecordFindingDocument, { input: { title, framework, severity, description: description || null, evidence: ev } });
    props.onDone();
  });
  return (
    <form
      class="panel form-grid"
      aria-label="Record finding"
      onSubmit={(e) => {
        e.preventDefault();
        void save.run();
      }}
    >
      <h3>Record finding</h3>
      <div class="wide">
        <TextField id="finding-title" label="Title" value={title} onInput={setTitle} required />
      </div>
      <Select id="finding-framework" label="Framework" value={framework} options={FRAMEWORKS} onChange={(v) => setFramework(v as FrameworkId)} />
      <Select id="finding-form-severity" label="Severity" value={severity} options={SEVERITIES} onChange={(v) => setSeverity(v as FindingSeverity)} />
      <div class="wide">
        <TextField id="finding-description" label="Description" value={description} onInput={setDescription} multiline />
      </div>
      <div class="wide">
        <TextField id="finding-evidence" label="Evidence (one per line)" value={evidence} onInput={setEvidence} multiline />
      </div>
      <ErrorNote error={save.error} />
      <div class="buttons wide">
        <button type="submit" class="primary" disabled={save.busy}>
          Record
        </button>
        <button type="button" onClick={props.onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

// ---------- reports ----------

const REPORTS_STORAGE = 'gateway-console.reports';

function Reports() {
  const can = useCan();
  const [framework, setFramework] = useState<FrameworkId>('GDPR');
  const [format, setFormat] = useState<ReportFormat>('PDF');
  const [includeEvidence, setIncludeEvidence] = useState(false);
  // The reports this tab asked for (the API lists reports only on the dashboard path).
  const [reports, setReports] = useState<ReportRowFragment[]>(() => JSON.parse(sessionStorage.getItem(REPORTS_STORAGE) ?? '[]'));
  useEffect(() => sessionStorage.setItem(REPORTS_STORAGE, JSON.stringify(reports.slice(0, 20))), [reports]);
  const upsert = (r: ReportRowFragment) => setReports((prev) => [r, ...prev.filter((p) => p.reportId !== r.reportId)].sort((a, b) => b.createdAt.localeCompare(a.createdAt)));
  const refresh = async (id: string) => {
    if (!can('READ_COMPLIANCE')) return;
    const { complianceReport } = await gql(ReportByIdDocument, { reportId: id });
    upsert(complianceReport);
  };
  // Live: a report's completion arrives as an event; a slow poll covers failures (they send none).
  useLiveEvents(['REPORT_COMPLETED'], (e) => {
    const id = String(e.data.reportId ?? '');
    if (reports.some((r) => r.reportId === id)) void refresh(id).catch(() => undefined);
  });
  useEffect(() => {
    const pending = reports.filter((r) => r.status === 'GENERATING');
    if (!pending.length) return;
    const t = setInterval(() => pending.forEach((r) => void refresh(r.reportId).catch(() => undefined)), 3000);
    return () => clearInterval(t);
  }, [reports.map((r) => r.reportId + r.status).join()]);
  const request = useAction(async () => {
    const { requestComplianceReport } = await gql(RequestReportDocument, { input: { framework, format, includeEvidence } });
    upsert(requestComplianceReport);
  });
  const get = useAction((r: ReportRowFragment) => download(r.downloadUrl!, `${r.reportId}.${show(r.format)}`));
  return (
    <Section title="Reports" id="reports">
      {can('WRITE_COMPLIANCE') ? (
        <form
          class="filters"
          aria-label="Request a report"
          onSubmit={(e) => {
            e.preventDefault();
            void request.run();
          }}
        >
          <Select id="report-framework" label="Framework" value={framework} options={FRAMEWORKS} onChange={(v) => setFramework(v as FrameworkId)} />
          <Select id="report-format" label="Format" value={format} options={REPORT_FORMATS} onChange={(v) => setFormat(v as ReportFormat)} />
          <label class="check">
            <input type="checkbox" checked={includeEvidence} onChange={(e) => setIncludeEvidence((e.target as HTMLInputElement).checked)} /> Include evidence
          </label>
          <button type="submit" class="primary" disabled={request.busy}>
            Request report
          </button>
        </form>
      ) : null}
      <ErrorNote error={request.error} />
      <ErrorNote error={get.error} />
      {reports.length ? (
        <ul class="reports" aria-live="polite">
          {reports.map((r) => (
            <li key={r.reportId} data-testid="report" data-status={show(r.status)}>
              <span>
                {frameworkName(r.framework)} · {r.format.toUpperCase()} · requested {formatTime(r.createdAt)}
              </span>
              <span class={`pill pill-${show(r.status)}`}>{show(r.status)}</span>
              {r.error ? <span class="error-code">{r.error}</span> : null}
              {r.status === 'COMPLETED' && r.downloadUrl && can('READ_COMPLIANCE') ? (
                <button type="button" onClick={() => get.run(r)} disabled={get.busy}>
                  Download {r.format.toUpperCase()}
                  {r.size ? ` (${formatBytes(r.size)})` : ''}
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      ) : (
        <p class="hint">Reports requested in this tab appear here and update live.</p>
      )}
    </Section>
  );
}

// ---------- activity ----------

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
    const entry: ActivityEntry = { timestamp: String(d.timestamp ?? e.createdAt), type: String(d.type ?? ''), user: String(d.user ?? ''), description: String(d.description ?? '') };
    setRecent((prev) => (prev && !prev.some((a) => sameActivity(a, entry)) ? [entry, ...prev].slice(0, RECENT_ACTIVITY) : prev));
  });
  return (
    <Section title="Activity and alerts" id="activity">
      <ErrorNote error={error} />
      <ErrorNote error={props.feedError} />
      {s ? (
        <p class="hint">
          System {show(s.status)} · compliance {s.systemHealth.compliance}, monitoring {s.systemHealth.monitoring}, validation {s.systemHealth.validation} · database uptime {s.uptime}
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
  const d = e.data as Record<string, any>;
  if (d.title) return String(d.title);
  if (d.description) return String(d.description);
  if (d.framework && d.score !== undefined) return `${frameworkName(d.framework)}: ${d.previousScore ?? '?'} → ${d.score}`;
  if (d.message) return String(d.message);
  if (d.reportId) return `report ${d.reportId}`;
  return '';
}

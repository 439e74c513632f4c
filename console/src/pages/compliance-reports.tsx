import { useEffect, useState } from 'preact/hooks';
import { download, gql } from '../api';
import { ReportByIdDocument, RequestReportDocument, type ReportRowFragment, type FrameworkId, type ReportFormat } from '../generated/graphql';
import { FRAMEWORKS, frameworkName, REPORT_FORMATS, show } from '../catalogue';
import { ErrorNote, formatBytes, formatTime, Section, Select, useAction } from '../ui';
import { useCan, useLiveEvents } from '../viewer';

const REPORTS_STORAGE = 'gateway-console.reports';

export function Reports() {
  const can = useCan();
  const [framework, setFramework] = useState<FrameworkId>('GDPR');
  const [format, setFormat] = useState<ReportFormat>('PDF');
  const [includeEvidence, setIncludeEvidence] = useState(false);
  // The reports this tab asked for (the API lists reports only on the dashboard path).
  const [reports, setReports] = useState<ReportRowFragment[]>(() => JSON.parse(sessionStorage.getItem(REPORTS_STORAGE) ?? '[]'));
  useEffect(() => sessionStorage.setItem(REPORTS_STORAGE, JSON.stringify(reports.slice(0, 20))), [reports]);
  const upsert = (r: ReportRowFragment) =>
    setReports((prev) => [r, ...prev.filter((p) => p.reportId !== r.reportId)].sort((a, b) => b.createdAt.localeCompare(a.createdAt)));
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

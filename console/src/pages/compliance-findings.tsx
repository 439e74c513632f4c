import { useState } from 'preact/hooks';
import { gql } from '../api';
import {
  ChangeFindingDocument,
  FindingListDocument,
  RecordFindingDocument,
  type FindingRowFragment,
  type FindingSeverity,
  type FrameworkId,
} from '../generated/graphql';
import { FINDING_STATUSES, FRAMEWORKS, frameworkName, SEVERITIES, show } from '../catalogue';
import { ErrorNote, formatTime, Pager, Section, Select, TextField, useAction, useLoad } from '../ui';
import { useCan, useLiveEvents } from '../viewer';

import { useDebouncedReload, PAGE_SIZE } from './compliance-shared';

export function Findings() {
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
            {page.data.length === 0 ? (
              <li class="hint">{Object.keys(filter).length ? 'No findings match these filters.' : 'No audit findings recorded yet.'}</li>
            ) : null}
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
    const ev = evidence
      .split('\n')
      .map((e) => e.trim())
      .filter(Boolean);
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

import { useEffect, useRef, useState } from 'preact/hooks';
import { gql } from '../api';
import {
  CreateRequirementFormDocument,
  RequirementListDocument,
  UpdateRequirementFormDocument,
  ValidateRequirementActionDocument,
  type RequirementRowFragment,
  type FrameworkId,
  type Priority,
  type RequirementStatus,
  type ValidateRequirementActionMutation,
} from '../generated/graphql';
import { FRAMEWORKS, frameworkName, PRIORITIES, REQUIREMENT_STATUSES, show } from '../catalogue';
import { ErrorNote, Pager, Section, Select, TextField, useAction, useLoad } from '../ui';
import { useCan, useLiveEvents } from '../viewer';

import { ANY, useDebouncedReload, PAGE_SIZE } from './compliance-shared';

export function Requirements() {
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
    const acceptanceCriteria = criteria
      .split('\n')
      .map((c) => c.trim())
      .filter(Boolean);
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
      {r ? (
        <Select id="req-form-status" label="Status" value={status} options={REQUIREMENT_STATUSES} onChange={(v) => setStatus(v as RequirementStatus)} />
      ) : null}
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

import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import { requirePermission } from '../../auth/principal';
import { clock } from '../../clock';
import type { DomainContext } from '../../context';
import { DomainError, notFound } from '../../errors';
import { parseInput, zodFieldErrors } from '../../validation';
import type { FrameworkId } from '../catalogue';
import { precheckFramework } from '../frameworks.service';
import type { Change, ChangeRunner } from '../change-runner';
import type { ReadModel } from '../read-model/read-model';
import { validateRequirement, type ValidationResult } from '../validation';
import { clausesOf } from './clauses';
import { Requirement, type Implementation, type RequirementStatus, type ValidationState } from './requirement.entity';
import {
  BatchCreateInput,
  BatchStatusInput,
  BatchStatusItem,
  BatchValidateInput,
  CreateRequirementInput,
  ListRequirementsQuery,
  UpdateRequirementInput,
  ValidateByIdInput,
  withoutNulls,
} from './requirement.inputs';
import { compact, findRequirement, insertRequirement, readRequirementPage, type RequirementPage } from './requirement.rows';
import type { FindingField } from '../findings/finding.projection';
import type { RequirementField } from './requirement.projection';
import { requirementDetail, type Page, type RequirementDetail, type RequirementListItem } from './requirement.views';

/** At most this many remembered list-query texts, each at most this long (`keptList`). */
const LIST_KEYS_MAX = 1000;
const LIST_KEY_MAX_TEXT = 512;

export interface RequirementServiceDeps {
  changes: ChangeRunner;
  readModel: ReadModel;
}

export interface BatchCreateResult {
  created: { id: string; title: string; status: 'created' }[];
  errors: { index: number; field: string; message: string }[];
}

export interface BatchStatusResult {
  updated: { id: string; status: RequirementStatus }[];
  errors: { index: number; id: string | null; message: string }[];
}

export interface BatchValidateResult {
  results: (ValidationResult & { requirementId: string })[];
  errors: { requirementId: string; message: string }[];
}

/** Requirements: CRUD, validation and batch operations; every change is logged, evented and re-scored. */
export class RequirementService {
  constructor(private readonly deps: RequirementServiceDeps) {}

  async create(ctx: DomainContext, raw: unknown): Promise<RequirementDetail> {
    requirePermission(ctx, 'write:requirements');
    precheckFramework(raw);
    const input = parseInput(CreateRequirementInput, raw);
    return this.deps.changes.create(ctx, (change) => {
      const view = insertRequirement(change, input);
      change.audit('requirement', 'requirement.create', view.id, null, view);
      change.emit('requirement.created', { ...view });
      change.log('requirement.created', `Created requirement "${view.title}" (${view.framework ?? 'unassigned'})`, view.id);
      return view;
    });
  }

  /** The short list form is the documented subset; `{detail: true}` gives every field. */
  async list(ctx: DomainContext, rawQuery: unknown): Promise<Page<RequirementListItem>>;
  async list(ctx: DomainContext, rawQuery: unknown, opts: { detail: true; fields?: readonly RequirementField[] }): Promise<Page<RequirementDetail>>;
  /**
   * `fields` (a projection, `requirementProjection`): only those fields are read and answered.
   * `findings` (a `findingProjection`; needs read:audits): each requirement's findings read in the
   * same statement, answered in `findings` beside `data` (a GraphQL page primes its findings loader).
   */
  async list(
    ctx: DomainContext,
    rawQuery: unknown,
    opts: { detail: true; fields?: readonly RequirementField[]; findings: readonly FindingField[] | undefined },
  ): Promise<RequirementPage<RequirementDetail>>;
  async list(
    ctx: DomainContext,
    rawQuery: unknown,
    opts: { detail?: boolean; fields?: readonly RequirementField[]; findings?: readonly FindingField[] } = {},
  ): Promise<RequirementPage> {
    const { q, key } = this.listQuery(ctx, rawQuery, !!opts.detail);
    const { fields, findings } = opts;
    if (findings) requirePermission(ctx, 'read:audits');
    const keyed = `${key}${fields ? `\u0000${fields.join(',')}` : ''}${findings ? `\u0000findings:${findings.join(',')}` : ''}`;
    return this.deps.readModel.cached(keyed, () => readRequirementPage(ctx.em, q, !!opts.detail, fields, findings));
  }

  /**
   * The page the read model keeps for this query at its current version, computing nothing; undefined
   * when none is kept. Checks and parses as `list` does (and throws what it throws).
   */
  async keptList(
    ctx: DomainContext,
    rawQuery: () => unknown,
    opts: { detail?: boolean; rawText?: string } = {},
  ): Promise<Page<RequirementListItem | RequirementDetail> | undefined> {
    // `rawText`, the text the query was read from (a query string, a tRPC input), lets a repeated
    // query skip reading, checking and parsing it: the key is a pure function of that text.
    const memo = opts.rawText !== undefined && opts.rawText.length <= LIST_KEY_MAX_TEXT ? `${opts.detail ? 'detail' : 'item'}\u0000${opts.rawText}` : undefined;
    let key = memo === undefined ? undefined : this.listKeys.get(memo);
    if (key === undefined) {
      key = this.listQuery(ctx, rawQuery(), !!opts.detail).key;
      if (memo !== undefined) {
        if (this.listKeys.size >= LIST_KEYS_MAX) this.listKeys.clear();
        this.listKeys.set(memo, key);
      }
    } else requirePermission(ctx, 'read:requirements');
    return this.deps.readModel.kept(key);
  }

  /** Keys of list queries by the text they were read from (`keptList`); bounded. */
  private readonly listKeys = new Map<string, string>();

  /** The permission check, the parsed query and the key its answer is kept under. */
  private listQuery(ctx: DomainContext, rawQuery: unknown, detail: boolean) {
    requirePermission(ctx, 'read:requirements');
    const query = withoutNulls(rawQuery);
    precheckFramework(query);
    const q = parseInput(ListRequirementsQuery, query);
    // The answer depends on the arguments only (the permission is checked above), so every caller shares it.
    const key = `requirements.list\u0000${detail ? 'detail' : 'item'}\u0000${q.framework ?? ''}\u0000${q.unassigned ?? ''}\u0000${q.status ?? ''}\u0000${q.priority ?? ''}\u0000${q.limit}\u0000${q.offset}`;
    return { q, key };
  }

  async get(ctx: DomainContext, id: string): Promise<RequirementDetail> {
    requirePermission(ctx, 'read:requirements');
    return this.deps.readModel.cached(`requirements.get\u0000${id}`, async () => requirementDetail(await this.load(ctx.em, id)));
  }

  /** The requirement the read model keeps at its current version, computing nothing; undefined when none is kept. */
  async keptGet(ctx: DomainContext, id: string): Promise<RequirementDetail | undefined> {
    requirePermission(ctx, 'read:requirements');
    return this.deps.readModel.kept(`requirements.get\u0000${id}`);
  }

  async update(ctx: DomainContext, id: string, raw: unknown): Promise<RequirementDetail> {
    requirePermission(ctx, 'write:requirements');
    precheckFramework(raw);
    const input = parseInput(UpdateRequirementInput, raw);
    const changed = Object.keys(input).filter((k) => (input as Record<string, unknown>)[k] !== undefined);
    if (!changed.length) {
      throw new DomainError('VALIDATION_ERROR', 'Nothing to update: give at least one updatable field', {
        fields: [{ field: '(body)', message: `give one or more of: ${Object.keys(UpdateRequirementInput.shape).join(', ')}` }],
      });
    }
    return this.deps.changes.run(ctx, async (change) => {
      const r = await this.load(change.tx, id);
      const previousStatus = r.status;
      const previous = requirementDetail(r);
      this.apply(r, input);
      r.updatedAt = clock.now();
      const view = requirementDetail(r);
      change.audit('requirement', 'requirement.update', r.id, previous, view);
      change.emit('requirement.updated', { ...view, changes: changed, previousStatus });
      const statusNote = r.status !== previousStatus ? `; status ${previousStatus} → ${r.status}` : '';
      change.log('requirement.updated', `Updated requirement "${r.title}" (${changed.join(', ')})${statusNote}`, r.id);
      return view;
    });
  }

  /** Soft delete: the row stays for the audit trail, hidden from every read. */
  async remove(ctx: DomainContext, id: string): Promise<{ id: string; deleted: true; deletedAt: string }> {
    requirePermission(ctx, 'write:requirements');
    return this.deps.changes.run(ctx, async (change) => {
      const r = await this.load(change.tx, id);
      r.deletedAt = clock.now();
      r.updatedAt = r.deletedAt;
      const deletedAt = r.deletedAt.toISOString();
      change.audit('requirement', 'requirement.delete', r.id, { deletedAt: null }, { deletedAt });
      change.emit('requirement.deleted', { id: r.id, title: r.title, framework: r.framework, deletedAt });
      change.log('requirement.deleted', `Deleted requirement "${r.title}" (${r.framework ?? 'unassigned'})`, r.id);
      return { id: r.id, deleted: true as const, deletedAt };
    });
  }

  /** Validates a stored requirement and records the outcome on it. */
  async validate(ctx: DomainContext, id: string): Promise<ValidationResult> {
    requirePermission(ctx, 'write:requirements');
    return this.deps.changes.run(ctx, async (change) => this.validateOne(change, await this.load(change.tx, id)));
  }

  /** Validates a requirement given in the body without storing anything. */
  async validateInline(ctx: DomainContext, raw: unknown): Promise<ValidationResult> {
    requirePermission(ctx, 'read:requirements');
    precheckFramework(raw);
    const input = parseInput(CreateRequirementInput, raw);
    return validateRequirement({ ...input, framework: (input.framework ?? null) as FrameworkId | null });
  }

  /** `{requirementId}` validates (and records) a stored requirement; anything else is validated inline. */
  async validateAny(ctx: DomainContext, raw: unknown): Promise<ValidationResult> {
    if (raw && typeof raw === 'object' && 'requirementId' in raw) {
      requirePermission(ctx, 'write:requirements');
      // Parsed like every other input, so a malformed id (wrong type, NUL, oversized) is a 400 before any query.
      const { requirementId } = parseInput(ValidateByIdInput, raw);
      return this.validate(ctx, requirementId);
    }
    return this.validateInline(ctx, raw);
  }

  /** The latest recorded validation of a requirement (null when it was never validated). */
  async latestValidation(ctx: DomainContext, id: string): Promise<{ requirementId: string; validation: ValidationState | null }> {
    requirePermission(ctx, 'read:requirements');
    const r = await this.load(ctx.em, id);
    return { requirementId: r.id, validation: r.validation ?? null };
  }

  async validateBatch(ctx: DomainContext, raw: unknown): Promise<BatchValidateResult> {
    requirePermission(ctx, 'write:requirements');
    const { requirementIds } = parseInput(BatchValidateInput, raw);
    return this.deps.changes.run(ctx, async (change) => {
      const rows = await change.tx.find(Requirement, { id: { $in: [...new Set(requirementIds)] } });
      const byId = new Map(rows.map((r) => [r.id, r]));
      const out: BatchValidateResult = { results: [], errors: [] };
      for (const id of requirementIds) {
        const r = byId.get(id);
        if (!r) {
          out.errors.push({ requirementId: id, message: `Requirement '${id}' not found` });
          continue;
        }
        out.results.push({ requirementId: id, ...(await this.validateOne(change, r)) });
      }
      return out;
    });
  }

  /** Creates every valid item; invalid items are reported by index and field without failing the rest. */
  async batchCreate(ctx: DomainContext, raw: unknown): Promise<BatchCreateResult> {
    requirePermission(ctx, 'write:requirements');
    const { requirements } = parseInput(BatchCreateInput, raw);
    const out: BatchCreateResult = { created: [], errors: [] };
    const valid: { index: number; input: z.output<typeof CreateRequirementInput> }[] = [];
    requirements.forEach((item, index) => {
      const parsed = CreateRequirementInput.safeParse(item);
      if (parsed.success) valid.push({ index, input: parsed.data });
      else for (const f of zodFieldErrors(parsed.error)) out.errors.push({ index, field: f.field, message: f.message });
    });
    if (!valid.length) return out;
    return this.deps.changes.create(ctx, (change) => {
      for (const { input } of valid) {
        const view = insertRequirement(change, input);
        out.created.push({ id: view.id, title: view.title, status: 'created' });
        change.audit('requirement', 'requirement.create', view.id, null, view);
        change.emit('requirement.created', { ...view });
        change.log('requirement.created', `Created requirement "${view.title}" (${view.framework ?? 'unassigned'}) in a batch`, view.id);
      }
      return out;
    });
  }

  /** Sets the status of each listed requirement; unknown ids and bad statuses are reported per item. */
  async batchUpdateStatus(ctx: DomainContext, raw: unknown): Promise<BatchStatusResult> {
    requirePermission(ctx, 'write:requirements');
    const { updates } = parseInput(BatchStatusInput, raw);
    return this.deps.changes.run(ctx, async (change) => {
      const out: BatchStatusResult = { updated: [], errors: [] };
      const items = updates.map((item, index) => ({ index, item, parsed: BatchStatusItem.safeParse(item) }));
      const ids = items.flatMap((i) => (i.parsed.success ? [i.parsed.data.id] : []));
      const rows = ids.length ? await change.tx.find(Requirement, { id: { $in: [...new Set(ids)] } }) : [];
      const byId = new Map(rows.map((r) => [r.id, r]));
      for (const { index, item, parsed } of items) {
        if (!parsed.success) {
          const rawId = item && typeof item === 'object' && typeof (item as { id?: unknown }).id === 'string' ? (item as { id: string }).id : null;
          const message = zodFieldErrors(parsed.error)
            .map((f) => `${f.field}: ${f.message}`)
            .join('; ');
          out.errors.push({ index, id: rawId, message });
          continue;
        }
        const r = byId.get(parsed.data.id);
        if (!r) {
          out.errors.push({ index, id: parsed.data.id, message: `Requirement '${parsed.data.id}' not found` });
          continue;
        }
        const previousStatus = r.status;
        const previous = requirementDetail(r);
        this.apply(r, { status: parsed.data.status });
        r.updatedAt = clock.now();
        change.audit('requirement', 'requirement.update', r.id, previous, requirementDetail(r));
        out.updated.push({ id: r.id, status: r.status });
        change.emit('requirement.updated', { ...requirementDetail(r), changes: ['status'], previousStatus });
        change.log('requirement.updated', `Set status of requirement "${r.title}" ${previousStatus} → ${r.status} in a batch`, r.id);
      }
      return out;
    });
  }

  // ---------- internals ----------

  private async load(em: EntityManager, id: string): Promise<Requirement> {
    const r = typeof id === 'string' && id.length <= 100 ? await findRequirement(em, id) : null;
    if (!r) throw notFound('Requirement', String(id).slice(0, 100));
    return r;
  }

  /**
   * Applies a partial update. Becoming `completed` stamps implementation.completedAt (unless the
   * body gives one); leaving `completed` clears it, since it would describe work no longer done.
   */
  private apply(r: Requirement, input: z.output<typeof UpdateRequirementInput>) {
    if (input.title !== undefined) r.title = input.title;
    if (input.description !== undefined) r.description = input.description;
    if (input.framework !== undefined) r.framework = input.framework;
    if (input.category !== undefined) r.category = input.category;
    if (input.priority !== undefined) r.priority = input.priority;
    if (input.acceptanceCriteria !== undefined) r.acceptanceCriteria = input.acceptanceCriteria;
    if (input.technicalContext !== undefined) {
      r.technicalContext = input.technicalContext === null ? null : compact({ ...(r.technicalContext ?? {}), ...input.technicalContext });
    }
    let implementation: Implementation | null | undefined = r.implementation;
    if (input.implementation !== undefined) {
      implementation = input.implementation === null ? null : compact({ ...(r.implementation ?? {}), ...input.implementation });
    }
    if (input.status !== undefined && input.status !== r.status) {
      const completedAtGiven = input.implementation?.completedAt !== undefined;
      if (input.status === 'completed' && !completedAtGiven) implementation = { ...(implementation ?? {}), completedAt: clock.now().toISOString() };
      if (r.status === 'completed' && input.status !== 'completed' && !completedAtGiven && implementation?.completedAt) {
        implementation = { ...implementation, completedAt: null };
      }
      r.status = input.status;
    }
    // JSON columns are compared by value; a new object makes the change visible to the unit of work.
    if (implementation !== r.implementation) r.implementation = implementation ? { ...implementation } : implementation;
    r.clauses = clausesOf(r);
  }

  private async validateOne(change: Change, r: Requirement): Promise<ValidationResult> {
    const result = validateRequirement({ ...r, framework: (r.framework ?? null) as FrameworkId | null });
    const previous = r.validation ?? null;
    r.validation = {
      status: result.valid ? 'passed' : 'failed',
      lastValidated: clock.now().toISOString(),
      score: result.score,
      issues: result.issues,
    };
    change.audit('requirement', 'requirement.validate', r.id, { validation: previous }, { validation: r.validation });
    change.emit('validation.completed', {
      requirementId: r.id,
      framework: r.framework,
      valid: result.valid,
      score: result.score,
      status: r.validation.status,
      issueCount: result.issues.length,
    });
    change.log('requirement.validated', `Validated requirement "${r.title}": ${r.validation.status} (score ${result.score})`, r.id);
    return result;
  }
}

import { getOperationAST, Kind, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import type { BudgetKind, OperationBudgets } from '../../../transport/budgets';
import type { Operation, Part } from '../pipeline';

/** Counts each root field of an operation against its limiter (see OperationBudgets). */
export interface OperationCharging {
  budgets: OperationBudgets;
  /** Root fields that count against the TTS limit (the rest count against the plan). */
  ttsFields: ReadonlySet<string>;
}

/** How many root fields of each kind the operation selects (through fragments too); `__typename` is free. */
export function rootFieldCounts(document: DocumentNode, operationName: string | null | undefined, ttsFields: ReadonlySet<string>): Record<BudgetKind, number> {
  const counts: Record<BudgetKind, number> = { tts: 0, plan: 0 };
  const operation = getOperationAST(document, operationName ?? undefined);
  if (!operation) return counts;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const seen = new Set<string>();
  const walk = (set: SelectionSetNode) => {
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) {
        if (sel.name.value !== '__typename') counts[ttsFields.has(sel.name.value) ? 'tts' : 'plan']++;
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        walk(sel.selectionSet);
      } else if (!seen.has(sel.name.value)) {
        seen.add(sel.name.value);
        const f = fragments.get(sel.name.value);
        if (f) walk(f.selectionSet);
      }
    }
  };
  walk(operation.selectionSet);
  return counts;
}

/** What an operation costs (units per budget, one per root field) and whom it is charged to. */
function chargeOf(charging: OperationCharging, op: Operation) {
  return {
    counts: rootFieldCounts(op.document, op.operationName, charging.ttsFields),
    caller: { ip: op.context.domain.ip, principal: op.context.domain.principal },
  };
}

/**
 * Charges each root field of an operation to the caller (its key's plan, else its address); over a
 * budget: the limiter's 429. The front's seam charges the same counts with `chargeUnlessRefused`
 * for an answer it sends itself.
 */
export function operationBudgets(charging: OperationCharging): Part {
  return {
    name: 'operation-budgets',
    async admit(op) {
      const { counts, caller } = chargeOf(charging, op);
      await charging.budgets.charge('tts', caller, counts.tts);
      await charging.budgets.charge('plan', caller, counts.plan);
    },
  };
}

/**
 * What `operationBudgets` charges an operation, for an answer sent without Apollo's admission (the
 * front's seam): the same counts on the same counters. When admission would refuse (over a budget),
 * nothing stays counted and the answer is false: the request goes to Apollo, which counts and refuses.
 */
export async function chargeUnlessRefused(charging: OperationCharging, op: Operation): Promise<boolean> {
  const { counts, caller } = chargeOf(charging, op);
  if (!(await charging.budgets.tryCharge('tts', caller, counts.tts))) return false;
  if (await charging.budgets.tryCharge('plan', caller, counts.plan)) return true;
  await charging.budgets.refund('tts', caller, counts.tts);
  return false;
}

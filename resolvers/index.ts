import { getMetadataStorage, type NonEmptyArray } from 'type-graphql';
import { TtsResolver } from './tts.resolver';
import { LiveResolver } from './live.resolver';
import { RequirementResolver } from './requirement.resolver';
import { ComplianceStatusResolver } from './compliance-status.resolver';
import { FindingResolver } from './finding.resolver';
import { FrameworkResolver } from './framework.resolver';
import { ApiKeyResolver } from './api-key.resolver';
import { AuditTrailResolver } from './audit-trail.resolver';
import { AssuranceResolver } from './assurance.resolver';
import { ViewerResolver } from './viewer.resolver';

/** Every resolver class of the schema. */
export const RESOLVERS: NonEmptyArray<Function> = [
  TtsResolver,
  LiveResolver,
  RequirementResolver,
  ComplianceStatusResolver,
  FindingResolver,
  FrameworkResolver,
  ApiKeyResolver,
  AuditTrailResolver,
  AssuranceResolver,
  ViewerResolver,
];

/**
 * Root fields (queries, mutations, subscriptions) of the text-to-speech resolver: each counts against the
 * TTS per-IP limit, as its REST path does; every other root field counts against the caller's plan.
 */
export function ttsRootFields(): ReadonlySet<string> {
  const storage = getMetadataStorage();
  const of = (list: { target: Function; schemaName: string }[]) => list.filter((m) => m.target === TtsResolver).map((m) => m.schemaName);
  return new Set([...of(storage.queries), ...of(storage.mutations), ...of(storage.subscriptions)]);
}

/** Root query fields whose answers depend only on the compliance read model, the arguments and the caller (kept by the response cache). */
export const READ_MODEL_QUERIES: ReadonlySet<string> = new Set(['requirements', 'requirement']);

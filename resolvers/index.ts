import type { NonEmptyArray } from 'type-graphql';
import { TtsResolver } from './tts.resolver';
import { LiveResolver } from './live.resolver';
import { ComplianceResolver } from './compliance.resolver';
import { AuditTrailResolver } from './audit-trail.resolver';
import { AssuranceResolver } from './assurance.resolver';
import { ViewerResolver } from './viewer.resolver';

/** Every resolver class of the schema. */
export const RESOLVERS: NonEmptyArray<Function> = [TtsResolver, LiveResolver, ComplianceResolver, AuditTrailResolver, AssuranceResolver, ViewerResolver];

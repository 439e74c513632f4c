import { AuditEntityTypeEnum, AuditProblemEnum } from './enums';
import { DateTimeScalar } from './scalars';
import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Pagination } from './compliance.types';

@ObjectType({ description: 'One change in the audit trail (21 CFR 11.10(e))' })
export class AuditEntry {
  @Field(() => String) id!: string;
  @Field(() => Int, { nullable: true, description: 'Position in the hash chain; null until sealed' }) seq!: number | null;
  @Field(() => DateTimeScalar) at!: string;
  @Field(() => String, { nullable: true, description: 'The key that made the change; null for the system' }) keyId!: string | null;
  @Field(() => String, { description: "The principal's name at the time" }) actor!: string;
  @Field(() => String, { description: 'e.g. requirement.update, finding.create, api_key.revoke, report.sign' }) action!: string;
  @Field(() => AuditEntityTypeEnum) entityType!: string;
  @Field(() => String) entityId!: string;
  @Field(() => String, { nullable: true }) requestId!: string | null;
  @Field(() => [String]) changedFields!: string[];
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Values of the changed fields before' }) before!: Record<string, unknown> | null;
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Values of the changed fields after' }) after!: Record<string, unknown> | null;
  @Field(() => String) contentHash!: string;
  @Field(() => String, { nullable: true }) previousHash!: string | null;
  @Field(() => String, { nullable: true }) hash!: string | null;
  @Field(() => Boolean) sealed!: boolean;
}

@ObjectType()
export class AuditTrailPage {
  @Field(() => [AuditEntry]) data!: AuditEntry[];
  @Field(() => Pagination) pagination!: Pagination;
}

@InputType()
export class AuditTrailFilter {
  @Field(() => AuditEntityTypeEnum, { nullable: true }) entity?: string;
  @Field(() => String, { nullable: true, description: 'The id of the record' }) id?: string;
  @Field(() => String, { nullable: true, description: 'The key id that made the change' }) key?: string;
  @Field(() => String, { nullable: true }) action?: string;
  @Field(() => String, { nullable: true, description: 'ISO timestamp or date (inclusive)' }) from?: string;
  @Field(() => String, { nullable: true, description: 'ISO timestamp or date (a date means its end)' }) to?: string;
}

@ObjectType()
export class AuditTrailRows {
  @Field(() => Int) total!: number;
  @Field(() => Int) sealed!: number;
  @Field(() => Int) unsealed!: number;
}

@ObjectType()
export class AuditChainHead {
  @Field(() => Int) seq!: number;
  @Field(() => String) hash!: string;
  @Field(() => DateTimeScalar) at!: string;
}

@ObjectType()
export class AuditBrokenLink {
  @Field(() => Int, { nullable: true }) seq!: number | null;
  @Field(() => String) id!: string;
  @Field(() => AuditProblemEnum) problem!: string;
  @Field(() => String) message!: string;
  @Field(() => String) expected!: string;
  @Field(() => String) found!: string;
}

@ObjectType({ description: 'GET /v1/audit-trail/verify' })
export class AuditTrailVerification {
  @Field(() => Boolean) intact!: boolean;
  @Field(() => DateTimeScalar) verifiedAt!: string;
  @Field(() => AuditTrailRows) rows!: AuditTrailRows;
  @Field(() => DateTimeScalar, { nullable: true }) oldestUnsealedAt!: string | null;
  @Field(() => AuditChainHead, { nullable: true }) head!: AuditChainHead | null;
  @Field(() => AuditBrokenLink, { nullable: true }) firstBroken!: AuditBrokenLink | null;
  @Field(() => Int) problems!: number;
}

import {
  ComplianceLevelEnum,
  FindingSeverityEnum,
  FindingStatusEnum,
  FrameworkIdEnum,
  PermissionEnum,
  PlanEnum,
  PriorityEnum,
  RequirementStatusEnum,
  ValidationOutcomeEnum,
  ValidationSeverityEnum,
} from './enums';
import { DateTimeScalar } from './scalars';
import { ScoreParts } from './scoring.types';
import { Field, Float, InputType, Int, ObjectType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';

// ---------- requirements ----------

@ObjectType()
export class TechnicalContext {
  @Field(() => String, { nullable: true }) scope?: string;
  @Field(() => String, { nullable: true }) dataFlow?: string;
  @Field(() => [String], { nullable: true }) relatedComponents?: string[];
}

@ObjectType()
export class Implementation {
  @Field(() => String, { nullable: true }) testFile?: string;
  @Field(() => String, { nullable: true }) gitBranch?: string;
  @Field(() => [String], { nullable: true }) relatedIssues?: string[];
  @Field(() => DateTimeScalar, { nullable: true }) completedAt?: string | null;
}

@ObjectType()
export class ValidationIssue {
  @Field(() => String) ruleId!: string;
  @Field(() => ValidationSeverityEnum) severity!: string;
  @Field(() => String) field!: string;
  @Field(() => String) message!: string;
}

@ObjectType({ description: 'The latest recorded validation of a requirement' })
export class RequirementValidation {
  @Field(() => ValidationOutcomeEnum) status!: string;
  @Field(() => DateTimeScalar) lastValidated!: string;
  @Field(() => Int) score!: number;
  @Field(() => [ValidationIssue]) issues!: ValidationIssue[];
}

@ObjectType()
export class FrameworkInfo {
  @Field(() => FrameworkIdEnum) id!: string;
  @Field(() => String) name!: string;
  @Field(() => String) description!: string;
  @Field(() => String) version!: string;
  @Field(() => [String]) categories!: string[];
  @Field(() => Int, { description: 'number of catalogue clauses' }) requirementCount!: number;
  @Field(() => Boolean) supported!: boolean;
}

@ObjectType()
export class Requirement {
  @Field(() => String) id!: string;
  @Field(() => String) title!: string;
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => FrameworkIdEnum, { nullable: true, description: 'null: not yet assigned to a framework (listed as unassigned, not scored)' }) framework!:
    string | null;
  @Field(() => String, { nullable: true }) category?: string | null;
  @Field(() => PriorityEnum) priority!: string;
  @Field(() => RequirementStatusEnum) status!: string;
  @Field(() => [String]) acceptanceCriteria!: string[];
  @Field(() => TechnicalContext, { nullable: true }) technicalContext?: TechnicalContext | null;
  @Field(() => Implementation, { nullable: true }) implementation?: Implementation | null;
  @Field(() => RequirementValidation, { nullable: true }) validation?: RequirementValidation | null;
  @Field(() => DateTimeScalar) createdAt!: string;
  @Field(() => DateTimeScalar) updatedAt!: string;
}

@ObjectType()
export class Pagination {
  @Field(() => Int) total!: number;
  @Field(() => Int) limit!: number;
  @Field(() => Int) offset!: number;
  @Field(() => Boolean) hasMore!: boolean;
}

@ObjectType()
export class RequirementPage {
  @Field(() => [Requirement]) data!: Requirement[];
  @Field(() => Pagination) pagination!: Pagination;
}

@InputType()
export class RequirementFilter {
  @Field(() => FrameworkIdEnum, { nullable: true }) framework?: string;
  @Field(() => Boolean, { nullable: true, description: 'true: only requirements not yet assigned to a framework; false: only assigned ones' })
  unassigned?: boolean;
  @Field(() => RequirementStatusEnum, { nullable: true }) status?: string;
  @Field(() => PriorityEnum, { nullable: true }) priority?: string;
}

@InputType()
export class TechnicalContextInput {
  @Field(() => String, { nullable: true }) scope?: string;
  @Field(() => String, { nullable: true }) dataFlow?: string;
  @Field(() => [String], { nullable: true }) relatedComponents?: string[];
}

@InputType()
export class ImplementationInput {
  @Field(() => String, { nullable: true }) testFile?: string;
  @Field(() => String, { nullable: true }) gitBranch?: string;
  @Field(() => [String], { nullable: true }) relatedIssues?: string[];
  @Field(() => DateTimeScalar, { nullable: true, description: 'ISO 8601; set automatically on completion when absent' }) completedAt?: string;
}

@InputType()
export class CreateRequirementInput {
  @Field(() => String) title!: string;
  @Field(() => String, { nullable: true }) description?: string;
  @Field(() => FrameworkIdEnum, { nullable: true, description: 'absent: a requirement not yet assigned to a framework' }) framework?: string;
  @Field(() => String, { nullable: true }) category?: string;
  @Field(() => PriorityEnum, { nullable: true, description: 'MEDIUM when absent' }) priority?: string;
  @Field(() => [String], { nullable: true }) acceptanceCriteria?: string[];
  @Field(() => TechnicalContextInput, { nullable: true }) technicalContext?: TechnicalContextInput;
  @Field(() => ImplementationInput, { nullable: true }) implementation?: ImplementationInput;
}

@InputType({ description: 'Partial update: only the fields given change' })
export class UpdateRequirementInput {
  @Field(() => String, { nullable: true }) title?: string;
  @Field(() => String, { nullable: true }) description?: string;
  @Field(() => FrameworkIdEnum, { nullable: true }) framework?: string;
  @Field(() => String, { nullable: true }) category?: string;
  @Field(() => PriorityEnum, { nullable: true }) priority?: string;
  @Field(() => RequirementStatusEnum, { nullable: true }) status?: string;
  @Field(() => [String], { nullable: true }) acceptanceCriteria?: string[];
  @Field(() => TechnicalContextInput, { nullable: true }) technicalContext?: TechnicalContextInput;
  @Field(() => ImplementationInput, { nullable: true }) implementation?: ImplementationInput;
}

@ObjectType()
export class DeleteRequirementResult {
  @Field(() => String) id!: string;
  @Field(() => Boolean) deleted!: boolean;
  @Field(() => DateTimeScalar) deletedAt!: string;
}

@ObjectType()
export class ValidationResult {
  @Field(() => Boolean) valid!: boolean;
  @Field(() => Int) score!: number;
  @Field(() => [ValidationIssue]) issues!: ValidationIssue[];
  @Field(() => [String]) suggestions!: string[];
  @Field(() => GraphQLJSONObject, { description: 'framework id → clause references' }) complianceMapping!: Record<string, string[]>;
}

@ObjectType({ description: 'The validation of one requirement of a batch, recorded on it' })
export class BatchValidated extends ValidationResult {
  @Field(() => String) requirementId!: string;
}

@ObjectType()
export class BatchValidateError {
  @Field(() => String) requirementId!: string;
  @Field(() => String) message!: string;
}

@ObjectType()
export class BatchValidateResult {
  @Field(() => [BatchValidated]) results!: BatchValidated[];
  @Field(() => [BatchValidateError], { description: 'ids not found (or deleted)' }) errors!: BatchValidateError[];
}

@ObjectType()
export class BatchCreated {
  @Field(() => String) id!: string;
  @Field(() => String) title!: string;
  @Field(() => String, { description: 'always "created"' }) status!: string;
}

@ObjectType()
export class BatchItemError {
  @Field(() => Int) index!: number;
  @Field(() => String) field!: string;
  @Field(() => String) message!: string;
}

@ObjectType()
export class BatchCreateResult {
  @Field(() => [BatchCreated]) created!: BatchCreated[];
  @Field(() => [BatchItemError]) errors!: BatchItemError[];
}

@InputType()
export class StatusUpdateInput {
  @Field(() => String) id!: string;
  @Field(() => RequirementStatusEnum) status!: string;
}

@ObjectType()
export class StatusUpdated {
  @Field(() => String) id!: string;
  @Field(() => RequirementStatusEnum) status!: string;
}

@ObjectType()
export class StatusUpdateError {
  @Field(() => Int) index!: number;
  @Field(() => String, { nullable: true }) id?: string | null;
  @Field(() => String) message!: string;
}

@ObjectType()
export class BatchStatusResult {
  @Field(() => [StatusUpdated]) updated!: StatusUpdated[];
  @Field(() => [StatusUpdateError]) errors!: StatusUpdateError[];
}

// ---------- compliance status ----------

@ObjectType()
export class FrameworkRequirementCounts {
  @Field(() => Int) total!: number;
  @Field(() => Int) completed!: number;
  @Field(() => Int) inProgress!: number;
  @Field(() => Int) pending!: number;
}

@ObjectType({ description: 'One framework of the compliance status (REST keys these by framework id)' })
export class FrameworkStatus {
  @Field(() => FrameworkIdEnum) framework!: string;
  @Field(() => Float) score!: number;
  @Field(() => ComplianceLevelEnum) status!: string;
  @Field(() => FrameworkRequirementCounts) requirements!: FrameworkRequirementCounts;
  @Field(() => DateTimeScalar, { nullable: true }) lastAssessment?: string | null;
  @Field(() => ScoreParts, { description: 'How the score was reached (docs/scoring.md)' }) scoring!: ScoreParts;
}

@ObjectType()
export class ComplianceStatus {
  @Field(() => Float) overallScore!: number;
  @Field(() => [FrameworkStatus]) frameworks!: FrameworkStatus[];
}

// ---------- findings ----------

@ObjectType()
export class Finding {
  @Field(() => String) id!: string;
  @Field(() => String) title!: string;
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => FrameworkIdEnum) framework!: string;
  @Field(() => String, { nullable: true }) requirementId?: string | null;
  @Field(() => FindingSeverityEnum) severity!: string;
  @Field(() => FindingStatusEnum) status!: string;
  @Field(() => [String]) evidence!: string[];
  @Field(() => String, { nullable: true }) resolution?: string | null;
  @Field(() => DateTimeScalar, { nullable: true }) resolvedAt?: string | null;
  @Field(() => DateTimeScalar) discoveredAt!: string;
  @Field(() => DateTimeScalar, { nullable: true }) dueDate?: string | null;
  @Field(() => DateTimeScalar) createdAt!: string;
  @Field(() => DateTimeScalar) updatedAt!: string;
}

@ObjectType()
export class FindingPage {
  @Field(() => [Finding]) data!: Finding[];
  @Field(() => Pagination) pagination!: Pagination;
}

@InputType()
export class FindingFilter {
  @Field(() => FrameworkIdEnum, { nullable: true }) framework?: string;
  @Field(() => FindingSeverityEnum, { nullable: true }) severity?: string;
  @Field(() => FindingStatusEnum, { nullable: true }) status?: string;
  @Field(() => String, { nullable: true }) requirementId?: string;
}

@InputType()
export class CreateFindingInput {
  @Field(() => String) title!: string;
  @Field(() => String, { nullable: true }) description?: string;
  @Field(() => FrameworkIdEnum, { nullable: true, description: 'absent: a requirement not yet assigned to a framework' }) framework?: string;
  @Field(() => FindingSeverityEnum) severity!: string;
  @Field(() => String, { nullable: true }) requirementId?: string;
  @Field(() => [String], { nullable: true }) evidence?: string[];
  @Field(() => DateTimeScalar, { nullable: true }) discoveredAt?: string;
  @Field(() => String, { nullable: true }) dueDate?: string;
}

@InputType()
export class UpdateFindingInput {
  @Field(() => FindingStatusEnum, { nullable: true }) status?: string;
  @Field(() => String, { nullable: true }) resolution?: string;
  @Field(() => DateTimeScalar, { nullable: true }) resolvedAt?: string;
  @Field(() => [String], { nullable: true, description: 'appended to the recorded evidence' }) evidence?: string[];
  @Field(() => FindingSeverityEnum, { nullable: true }) severity?: string;
  @Field(() => String, { nullable: true }) dueDate?: string;
  @Field(() => String, { nullable: true }) description?: string;
}

// ---------- frameworks ----------

@ObjectType()
export class FrameworkClause {
  @Field(() => String) id!: string;
  @Field(() => String) section!: string;
  @Field(() => String) title!: string;
  @Field(() => String) description!: string;
}

@ObjectType()
export class ValidationRuleInfo {
  @Field(() => String) id!: string;
  @Field(() => String) name!: string;
  @Field(() => String) description!: string;
}

@ObjectType()
export class Framework extends FrameworkInfo {
  @Field(() => [FrameworkClause]) requirements!: FrameworkClause[];
  @Field(() => [ValidationRuleInfo]) validationRules!: ValidationRuleInfo[];
}

// ---------- API keys ----------

@InputType()
export class CreateApiKeyInput {
  @Field(() => String) name!: string;
  @Field(() => [PermissionEnum]) permissions!: string[];
  @Field(() => String, { nullable: true, description: 'count and unit: s, m, h, d, w or y (e.g. 30d)' }) expiresIn?: string;
  @Field(() => PlanEnum, { nullable: true, description: 'STANDARD when absent; others need the admin key' }) plan?: string;
}

@ObjectType()
export class IssuedApiKey {
  @Field(() => String) id!: string;
  @Field(() => String, { description: 'the secret; shown only here' }) key!: string;
  @Field(() => String) name!: string;
  @Field(() => [PermissionEnum]) permissions!: string[];
  @Field(() => PlanEnum) plan!: string;
  @Field(() => DateTimeScalar, { nullable: true }) expiresAt?: string | null;
  @Field(() => DateTimeScalar) createdAt!: string;
}

@ObjectType({ description: 'An API key as listed (never its secret)' })
export class ApiKeyListing {
  @Field(() => String) id!: string;
  @Field(() => String) prefix!: string;
  @Field(() => String) name!: string;
  @Field(() => [PermissionEnum]) permissions!: string[];
  @Field(() => PlanEnum) plan!: string;
  @Field(() => Boolean) isAdmin!: boolean;
  @Field(() => String, { nullable: true, description: 'id of the issuing key' }) issuedBy?: string | null;
  @Field(() => DateTimeScalar) createdAt!: string;
  @Field(() => DateTimeScalar, { nullable: true }) expiresAt?: string | null;
  @Field(() => DateTimeScalar, { nullable: true }) lastUsedAt?: string | null;
  @Field(() => DateTimeScalar, { nullable: true }) revokedAt?: string | null;
}

@ObjectType()
export class RevokeApiKeyResult {
  @Field(() => String) id!: string;
  @Field(() => Boolean) revoked!: boolean;
}

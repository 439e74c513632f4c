import { ScoreParts } from './assurance.types';
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
  @Field(() => String, { nullable: true }) completedAt?: string | null;
}

@ObjectType()
export class ValidationIssue {
  @Field(() => String) ruleId!: string;
  @Field(() => String, { description: 'error, warning or info' }) severity!: string;
  @Field(() => String) field!: string;
  @Field(() => String) message!: string;
}

@ObjectType({ description: 'The latest recorded validation of a requirement' })
export class RequirementValidation {
  @Field(() => String, { description: 'passed or failed' }) status!: string;
  @Field(() => String) lastValidated!: string;
  @Field(() => Int) score!: number;
  @Field(() => [ValidationIssue]) issues!: ValidationIssue[];
}

@ObjectType()
export class FrameworkInfo {
  @Field(() => String) id!: string;
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
  @Field(() => String, { description: 'iso13485, fda21cfr11, gdpr or soc2' }) framework!: string;
  @Field(() => String, { nullable: true }) category?: string | null;
  @Field(() => String, { description: 'critical, high, medium or low' }) priority!: string;
  @Field(() => String, { description: 'pending, in-progress or completed' }) status!: string;
  @Field(() => [String]) acceptanceCriteria!: string[];
  @Field(() => TechnicalContext, { nullable: true }) technicalContext?: TechnicalContext | null;
  @Field(() => Implementation, { nullable: true }) implementation?: Implementation | null;
  @Field(() => RequirementValidation, { nullable: true }) validation?: RequirementValidation | null;
  @Field(() => String) createdAt!: string;
  @Field(() => String) updatedAt!: string;
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
  @Field(() => String, { nullable: true }) framework?: string;
  @Field(() => String, { nullable: true }) status?: string;
  @Field(() => String, { nullable: true }) priority?: string;
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
  @Field(() => String, { nullable: true, description: 'ISO 8601; set automatically on completion when absent' }) completedAt?: string;
}

@InputType()
export class CreateRequirementInput {
  @Field(() => String) title!: string;
  @Field(() => String, { nullable: true }) description?: string;
  @Field(() => String) framework!: string;
  @Field(() => String, { nullable: true }) category?: string;
  @Field(() => String, { nullable: true, description: 'critical, high, medium (default) or low' }) priority?: string;
  @Field(() => [String], { nullable: true }) acceptanceCriteria?: string[];
  @Field(() => TechnicalContextInput, { nullable: true }) technicalContext?: TechnicalContextInput;
  @Field(() => ImplementationInput, { nullable: true }) implementation?: ImplementationInput;
}

@InputType({ description: 'Partial update: only the fields given change' })
export class UpdateRequirementInput {
  @Field(() => String, { nullable: true }) title?: string;
  @Field(() => String, { nullable: true }) description?: string;
  @Field(() => String, { nullable: true }) framework?: string;
  @Field(() => String, { nullable: true }) category?: string;
  @Field(() => String, { nullable: true }) priority?: string;
  @Field(() => String, { nullable: true }) status?: string;
  @Field(() => [String], { nullable: true }) acceptanceCriteria?: string[];
  @Field(() => TechnicalContextInput, { nullable: true }) technicalContext?: TechnicalContextInput;
  @Field(() => ImplementationInput, { nullable: true }) implementation?: ImplementationInput;
}

@ObjectType()
export class DeleteRequirementResult {
  @Field(() => String) id!: string;
  @Field(() => Boolean) deleted!: boolean;
  @Field(() => String) deletedAt!: string;
}

@ObjectType()
export class ValidationResult {
  @Field(() => Boolean) valid!: boolean;
  @Field(() => Int) score!: number;
  @Field(() => [ValidationIssue]) issues!: ValidationIssue[];
  @Field(() => [String]) suggestions!: string[];
  @Field(() => GraphQLJSONObject, { description: 'framework id → clause references' }) complianceMapping!: Record<string, string[]>;
}

@ObjectType()
export class BatchCreated {
  @Field(() => String) id!: string;
  @Field(() => String) title!: string;
  @Field(() => String) status!: string;
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
  @Field(() => String) status!: string;
}

@ObjectType()
export class StatusUpdated {
  @Field(() => String) id!: string;
  @Field(() => String) status!: string;
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
  @Field(() => String) framework!: string;
  @Field(() => Float) score!: number;
  @Field(() => String, { description: 'compliant, mostly-compliant, partially-compliant, non-compliant or not-assessed' }) status!: string;
  @Field(() => FrameworkRequirementCounts) requirements!: FrameworkRequirementCounts;
  @Field(() => String, { nullable: true }) lastAssessment?: string | null;
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
  @Field(() => String) framework!: string;
  @Field(() => String, { nullable: true }) requirementId?: string | null;
  @Field(() => String, { description: 'low, medium, high or critical' }) severity!: string;
  @Field(() => String, { description: 'open, in-progress or resolved' }) status!: string;
  @Field(() => [String]) evidence!: string[];
  @Field(() => String, { nullable: true }) resolution?: string | null;
  @Field(() => String, { nullable: true }) resolvedAt?: string | null;
  @Field(() => String) discoveredAt!: string;
  @Field(() => String, { nullable: true }) dueDate?: string | null;
  @Field(() => String) createdAt!: string;
  @Field(() => String) updatedAt!: string;
}

@ObjectType()
export class FindingPage {
  @Field(() => [Finding]) data!: Finding[];
  @Field(() => Pagination) pagination!: Pagination;
}

@InputType()
export class FindingFilter {
  @Field(() => String, { nullable: true }) framework?: string;
  @Field(() => String, { nullable: true }) severity?: string;
  @Field(() => String, { nullable: true }) status?: string;
  @Field(() => String, { nullable: true }) requirementId?: string;
}

@InputType()
export class CreateFindingInput {
  @Field(() => String) title!: string;
  @Field(() => String, { nullable: true }) description?: string;
  @Field(() => String) framework!: string;
  @Field(() => String) severity!: string;
  @Field(() => String, { nullable: true }) requirementId?: string;
  @Field(() => [String], { nullable: true }) evidence?: string[];
  @Field(() => String, { nullable: true }) discoveredAt?: string;
  @Field(() => String, { nullable: true }) dueDate?: string;
}

@InputType()
export class UpdateFindingInput {
  @Field(() => String, { nullable: true }) status?: string;
  @Field(() => String, { nullable: true }) resolution?: string;
  @Field(() => String, { nullable: true }) resolvedAt?: string;
  @Field(() => [String], { nullable: true, description: 'appended to the recorded evidence' }) evidence?: string[];
  @Field(() => String, { nullable: true }) severity?: string;
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
  @Field(() => [String]) permissions!: string[];
  @Field(() => String, { nullable: true, description: 'count and unit: s, m, h, d, w or y (e.g. 30d)' }) expiresIn?: string;
  @Field(() => String, { nullable: true, description: 'standard (default), premium or enterprise (admin only)' }) plan?: string;
}

@ObjectType()
export class IssuedApiKey {
  @Field(() => String) id!: string;
  @Field(() => String, { description: 'the secret; shown only here' }) key!: string;
  @Field(() => String) name!: string;
  @Field(() => [String]) permissions!: string[];
  @Field(() => String) plan!: string;
  @Field(() => String, { nullable: true }) expiresAt?: string | null;
  @Field(() => String) createdAt!: string;
}

@ObjectType({ description: 'An API key as listed (never its secret)' })
export class ApiKeyListing {
  @Field(() => String) id!: string;
  @Field(() => String) prefix!: string;
  @Field(() => String) name!: string;
  @Field(() => [String]) permissions!: string[];
  @Field(() => String) plan!: string;
  @Field(() => Boolean) isAdmin!: boolean;
  @Field(() => String, { nullable: true, description: 'id of the issuing key' }) issuedBy?: string | null;
  @Field(() => String) createdAt!: string;
  @Field(() => String, { nullable: true }) expiresAt?: string | null;
  @Field(() => String, { nullable: true }) lastUsedAt?: string | null;
  @Field(() => String, { nullable: true }) revokedAt?: string | null;
}

@ObjectType()
export class RevokeApiKeyResult {
  @Field(() => String) id!: string;
  @Field(() => Boolean) revoked!: boolean;
}

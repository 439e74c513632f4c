import {
  FindingSeverityEnum,
  FindingStatusEnum,
  FrameworkIdEnum,
  PriorityEnum,
  RequirementStatusEnum,
  TraceEvidenceKindEnum,
  ValidationOutcomeEnum,
} from './enums';
import { DateTimeScalar } from './scalars';
import { Field, Float, Int, ObjectType } from 'type-graphql';

@ObjectType()
export class TraceEvidence {
  @Field(() => TraceEvidenceKindEnum) kind!: string;
  @Field(() => String) value!: string;
  @Field(() => String, { nullable: true }) findingId!: string | null;
}

@ObjectType()
export class TraceFinding {
  @Field(() => String) id!: string;
  @Field(() => String) title!: string;
  @Field(() => String, { nullable: true }) description!: string | null;
  @Field(() => FindingSeverityEnum) severity!: string;
  @Field(() => FindingStatusEnum) status!: string;
  @Field(() => DateTimeScalar) discoveredAt!: string;
  @Field(() => DateTimeScalar, { nullable: true }) dueDate!: string | null;
  @Field(() => String, { nullable: true }) resolution!: string | null;
  @Field(() => DateTimeScalar, { nullable: true }) resolvedAt!: string | null;
  @Field(() => [String]) evidence!: string[];
}

@ObjectType()
export class TraceValidation {
  @Field(() => ValidationOutcomeEnum) status!: string;
  @Field(() => Float) score!: number;
  @Field(() => DateTimeScalar) lastValidated!: string;
}

@ObjectType()
export class TraceRequirement {
  @Field(() => String) id!: string;
  @Field(() => String) title!: string;
  @Field(() => RequirementStatusEnum) status!: string;
  @Field(() => PriorityEnum) priority!: string;
  @Field(() => [String], { description: 'Every clause this requirement maps to' }) clauses!: string[];
  @Field(() => TraceValidation, { nullable: true }) latestValidation!: TraceValidation | null;
  @Field(() => [TraceFinding]) openFindings!: TraceFinding[];
  @Field(() => [TraceFinding]) resolvedFindings!: TraceFinding[];
  @Field(() => [TraceEvidence]) evidence!: TraceEvidence[];
}

@ObjectType()
export class TraceClause {
  @Field(() => String) clauseId!: string;
  @Field(() => String) section!: string;
  @Field(() => String) title!: string;
  @Field(() => String) category!: string;
  @Field(() => Boolean) covered!: boolean;
  @Field(() => [TraceRequirement]) requirements!: TraceRequirement[];
}

@ObjectType()
export class TraceGap {
  @Field(() => String) clauseId!: string;
  @Field(() => String) section!: string;
  @Field(() => String) title!: string;
  @Field(() => String) category!: string;
}

@ObjectType()
export class TraceSummary {
  @Field(() => Int) clauses!: number;
  @Field(() => Int) covered!: number;
  @Field(() => Int) gaps!: number;
  @Field(() => Float) coveragePercent!: number;
  @Field(() => Int) requirements!: number;
  @Field(() => Int) unmappedRequirements!: number;
  @Field(() => Int, { description: 'Requirements not yet assigned to any framework: in no matrix' }) unassignedRequirements!: number;
  @Field(() => Int) openFindings!: number;
  @Field(() => Int) resolvedFindings!: number;
}

@ObjectType({ description: 'GET /v1/compliance/traceability: clause → requirements → latest validation → findings → evidence' })
export class TraceabilityMatrix {
  @Field(() => FrameworkIdEnum) framework!: string;
  @Field(() => String) frameworkName!: string;
  @Field(() => String) version!: string;
  @Field(() => DateTimeScalar) generatedAt!: string;
  @Field(() => Boolean, { description: 'False when the caller lacks read:audits (findings and their evidence left out)' }) findingsIncluded!: boolean;
  @Field(() => TraceSummary) summary!: TraceSummary;
  @Field(() => [TraceClause]) clauses!: TraceClause[];
  @Field(() => [TraceGap], { description: 'Clauses no requirement maps to' }) gaps!: TraceGap[];
  @Field(() => [TraceRequirement]) unmappedRequirements!: TraceRequirement[];
  @Field(() => [TraceFinding], { description: 'Findings not linked to a requirement' }) unlinkedFindings!: TraceFinding[];
}

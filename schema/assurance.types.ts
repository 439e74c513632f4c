import { ComplianceLevelEnum, FrameworkIdEnum, GateCheckNameEnum, GateOutcomeEnum, VerificationMatchEnum } from './enums';
import { DateTimeScalar } from './scalars';
import { Field, Float, Int, ObjectType } from 'type-graphql';
import { ReportSignature } from './live.types';

@ObjectType({ description: 'Open (open or in-progress) findings by severity' })
export class OpenFindingCounts {
  @Field(() => Int) critical!: number;
  @Field(() => Int) high!: number;
  @Field(() => Int) medium!: number;
  @Field(() => Int) low!: number;
}

@ObjectType()
export class ScoreCoverage {
  @Field(() => Int, { description: "Clauses in the framework's catalogue" }) clauses!: number;
  @Field(() => Int, { description: 'Clauses at least one requirement maps to' }) covered!: number;
  @Field(() => Float) percent!: number;
}

@ObjectType()
export class ScoreFindings {
  @Field(() => OpenFindingCounts) open!: OpenFindingCounts;
  @Field(() => Float, { description: 'Points subtracted for open findings' }) penalty!: number;
  @Field(() => Float, { nullable: true, description: 'Highest score allowed while a critical (39.9) or high (69.9) finding is open' }) cap!: number | null;
}

@ObjectType()
export class ScoreWeights {
  @Field(() => Float) coverage!: number;
  @Field(() => Float) implementation!: number;
  @Field(() => Float) validation!: number;
}

@ObjectType({ description: 'The parts of a score (docs/scoring.md): score = min(cap, base − penalty)' })
export class ScoreParts {
  @Field(() => ScoreCoverage) coverage!: ScoreCoverage;
  @Field(() => Float, { description: 'Priority-weighted requirement status, 0–100' }) implementation!: number;
  @Field(() => Float, { description: 'Priority-weighted share of requirements whose latest validation passed, 0–100' }) validation!: number;
  @Field(() => Float, { description: 'coverage, implementation and validation weighed' }) base!: number;
  @Field(() => ScoreFindings) findings!: ScoreFindings;
  @Field(() => ScoreWeights) weights!: ScoreWeights;
}

@ObjectType()
export class GateCheck {
  @Field(() => GateCheckNameEnum) name!: string;
  @Field(() => Boolean) passed!: boolean;
  @Field(() => Float) actual!: number;
  @Field(() => Float) limit!: number;
  @Field(() => String) message!: string;
}

@ObjectType()
export class GateThresholds {
  @Field(() => Float) minScore!: number;
  @Field(() => Int, { nullable: true }) maxOpenFindings!: number | null;
}

@ObjectType()
export class GateOpenFindings extends OpenFindingCounts {
  @Field(() => Int) total!: number;
}

@ObjectType({ description: 'GET /v1/compliance/gate' })
export class GateResult {
  @Field(() => FrameworkIdEnum) framework!: string;
  @Field(() => GateOutcomeEnum) result!: string;
  @Field(() => Boolean) passed!: boolean;
  @Field(() => [String], { description: 'Why it failed; empty on pass' }) reasons!: string[];
  @Field(() => [GateCheck]) checks!: GateCheck[];
  @Field(() => Float) score!: number;
  @Field(() => ComplianceLevelEnum) status!: string;
  @Field(() => GateThresholds) thresholds!: GateThresholds;
  @Field(() => GateOpenFindings) openFindings!: GateOpenFindings;
  @Field(() => ScoreParts) scoring!: ScoreParts;
  @Field(() => DateTimeScalar) evaluatedAt!: string;
}

@ObjectType({ description: 'POST /v1/compliance/reports/{id}/verify' })
export class ReportVerification {
  @Field(() => String) reportId!: string;
  @Field(() => Boolean, { description: 'The bytes are exactly a file this report served' }) valid!: boolean;
  @Field(() => String, { description: 'SHA-256 of the bytes given' }) sha256!: string;
  @Field(() => Int) size!: number;
  @Field(() => String, { description: 'The published hash (the file served now)' }) expectedSha256!: string;
  @Field(() => String) recordSha256!: string;
  @Field(() => VerificationMatchEnum, { nullable: true, description: 'null when nothing matches' }) matches!: string | null;
  @Field(() => Boolean) current!: boolean;
  @Field(() => [ReportSignature]) signatures!: ReportSignature[];
  @Field(() => String) message!: string;
}

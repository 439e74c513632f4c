import { ComplianceLevelEnum, FrameworkIdEnum, GateCheckNameEnum, GateOutcomeEnum, VerificationMatchEnum } from './enums';
import { DateTimeScalar } from './scalars';
import { OpenFindingCounts, ScoreParts } from './scoring.types';
import { Field, Float, Int, ObjectType } from 'type-graphql';
import { ReportSignature } from './live.types';

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

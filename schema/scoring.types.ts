import { Field, Float, Int, ObjectType } from 'type-graphql';

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

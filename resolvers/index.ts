import type { NonEmptyArray } from 'type-graphql';
import { TtsResolver } from './tts.resolver';

/** Every resolver class of the schema. */
export const RESOLVERS: NonEmptyArray<Function> = [TtsResolver];

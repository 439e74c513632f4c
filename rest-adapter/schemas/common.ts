import { z } from 'zod';
import { SUPPORTED_FRAMEWORKS } from '../../domain/compliance/catalogue';
import { PRIORITIES, REQUIREMENT_STATUSES } from '../../domain/compliance/requirements/requirement.entity';
import { FINDING_STATUSES, SEVERITIES } from '../../domain/compliance/findings/audit-finding.entity';
import { AUDIO_FORMATS, PROVIDER_IDS } from '../../domain/tts/catalogue';

/**
 * Response schemas of the REST contract. The route table names one per operation; the OpenAPI
 * document is generated from them and the test client checks every answer against that document,
 * so what a client generates from matches what the gateway sends. Closed sets come from the
 * domain's own lists, so an enum cannot fall behind the rule it describes.
 */
const oneOf = <T extends string>(values: readonly T[]) => z.enum(values as unknown as [T, ...T[]]);

export const Framework = oneOf(SUPPORTED_FRAMEWORKS);
export const RequirementStatus = oneOf(REQUIREMENT_STATUSES);
export const Priority = oneOf(PRIORITIES);
export const Severity = oneOf(SEVERITIES);
export const FindingStatus = oneOf(FINDING_STATUSES);
export const Provider = oneOf(PROVIDER_IDS);
export const AudioFormat = oneOf(AUDIO_FORMATS);
export const ComplianceLevel = z.enum(['compliant', 'mostly-compliant', 'partially-compliant', 'non-compliant', 'not-assessed']);

/** An ISO 8601 instant, as every time in these APIs is written. */
export const Instant = z.string().meta({ format: 'date-time' });

export const Pagination = z.object({ total: z.number().int(), limit: z.number().int(), offset: z.number().int(), hasMore: z.boolean() });
export const page = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), pagination: Pagination });
export const list = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item) });

const FieldError = z.object({ field: z.string(), message: z.string() });

/** `/api/v1` (speech): `{error: {message, code, provider?, details?}}`. */
export const TtsError = z.object({
  error: z.object({
    message: z.string(),
    code: z.string(),
    provider: z.string().nullable().optional(),
    details: z.record(z.string(), z.unknown()).optional(),
  }),
});

/** `/v1`, `/api` (compliance): details are a list of field errors, or an object for codes that carry data (e.g. INVALID_FRAMEWORK). */
export const IntegrationError = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.union([z.array(FieldError), z.record(z.string(), z.unknown())]),
    requestId: z.string(),
  }),
});

/** `/v1/audio/speech`, `/v1/models`: OpenAI's `{error: {message, type, param, code}}` (transport/openai-error.ts). */
export const OpenAiError = z.object({
  error: z.object({
    message: z.string(),
    type: z.enum(['invalid_request_error', 'authentication_error', 'permission_error', 'not_found_error', 'rate_limit_error', 'server_error']),
    param: z.string().nullable(),
    code: z.string(),
  }),
});

/** `/v1/dashboard`, `/api/dashboard`. */
export const DashboardError = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.union([z.array(FieldError), z.record(z.string(), z.unknown())]).optional(),
    requestId: z.string().optional(),
  }),
});

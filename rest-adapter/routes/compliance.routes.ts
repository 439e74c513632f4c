import { z } from 'zod';
import { CreateApiKeyInput } from '../../domain/auth/auth.service';
import { CreateFindingInput, ListFindingsQuery, UpdateFindingInput } from '../../domain/compliance/findings/finding.service';
import {
  BatchCreateInput,
  BatchStatusInput,
  CreateRequirementInput,
  ListRequirementsQuery,
  UpdateRequirementInput,
} from '../../domain/compliance/requirements/requirement.inputs';
import { SUPPORTED_FRAMEWORKS } from '../../domain/compliance/catalogue';
import { defineRoutes, errorResponse, routesWith } from '../route';
import * as C from '../schemas/compliance';

const V1 = '/v1';
const notFound = { 404: errorResponse('Not found') };
const invalidFramework = { 400: errorResponse('VALIDATION_ERROR, or INVALID_FRAMEWORK with details.supportedFrameworks') };

/** Every compliance path shares its envelope and its per-plan limiter. */
const route = routesWith({ envelope: 'integration', limiter: 'plan' } as const);

/** The detailed compliance listing (`/v1/...`) and API key management; dashboard paths live elsewhere. */
export const complianceRoutes = defineRoutes([
  // --- API keys ---
  route({
    method: 'post',
    path: `${V1}/auth/api-keys`,
    operationId: 'createApiKey',
    response: C.IssuedApiKey,
    summary: 'Issue an API key (the secret is shown once, in `key`); a key can only grant permissions its issuer holds',
    tag: 'auth',
    permission: 'manage:api-keys',
    request: { body: CreateApiKeyInput, example: { name: 'ci pipeline', permissions: ['read:requirements', 'read:compliance'], expiresIn: '30d' } },
    status: 201,
    handle: ({ ctx, services, body }) => services.auth.issueKey(ctx, body),
  }),
  route({
    method: 'get',
    path: `${V1}/auth/api-keys`,
    operationId: 'listApiKeys',
    response: C.ApiKeyList,
    summary: 'List API keys, newest first: the admin sees every key, any other key the keys it issued (never secrets)',
    tag: 'auth',
    permission: 'manage:api-keys',
    handle: ({ ctx, services }) => services.auth.listKeys(ctx),
  }),
  route({
    method: 'delete',
    path: `${V1}/auth/api-keys/{id}`,
    operationId: 'revokeApiKey',
    response: C.RevokedApiKey,
    summary: 'Revoke an API key (the admin, or the key that issued it)',
    tag: 'auth',
    permission: 'manage:api-keys',
    responses: notFound,
    handle: ({ ctx, services, params }) => services.auth.revokeKey(ctx, params.id),
  }),

  // --- requirements (batch paths before `{id}` so they are not taken for an id) ---
  route({
    method: 'post',
    path: `${V1}/requirements/batch`,
    operationId: 'batchCreateRequirements',
    response: C.BatchCreateResult,
    summary: 'Create up to 100 requirements; invalid items are reported in `errors` by index and field without failing the rest',
    tag: 'requirements',
    permission: 'write:requirements',
    request: {
      body: BatchCreateInput.extend({ requirements: z.array(CreateRequirementInput).min(1).max(100) }),
      example: { requirements: [{ title: 'Audit trail for record changes', framework: 'fda21cfr11', priority: 'high' }] },
    },
    handle: ({ ctx, services, body }) => services.requirements.batchCreate(ctx, body),
  }),
  route({
    method: 'patch',
    path: `${V1}/requirements/batch`,
    operationId: 'batchUpdateRequirementStatus',
    response: C.BatchStatusResult,
    summary: 'Set the status of up to 100 requirements; unknown ids and invalid statuses are reported per item',
    tag: 'requirements',
    permission: 'write:requirements',
    request: {
      body: BatchStatusInput.extend({
        updates: z
          .array(z.object({ id: z.string(), status: C.RequirementStatus }))
          .min(1)
          .max(100),
      }),
      example: { updates: [{ id: 'req_0000000000000000000000000', status: 'in-progress' }] },
    },
    handle: ({ ctx, services, body }) => services.requirements.batchUpdateStatus(ctx, body),
  }),
  route({
    method: 'get',
    path: `${V1}/requirements`,
    operationId: 'listRequirements',
    response: C.RequirementPage,
    summary: 'List requirements, newest first (limit default 50, at most 500)',
    tag: 'requirements',
    permission: 'read:requirements',
    request: { query: ListRequirementsQuery },
    responses: invalidFramework,
    handle: ({ ctx, services, query }) => services.requirements.list(ctx, query),
  }),
  route({
    method: 'post',
    path: `${V1}/requirements`,
    operationId: 'createRequirement',
    response: C.RequirementDetail,
    summary: 'Create a requirement (status pending)',
    tag: 'requirements',
    permission: 'write:requirements',
    request: {
      body: CreateRequirementInput,
      example: {
        title: 'Audit trail for record changes',
        framework: 'fda21cfr11',
        priority: 'high',
        description: 'Every create, update and delete of an electronic record is logged with user and time.',
        acceptanceCriteria: ['Each change records who, when and the old and new value'],
      },
    },
    status: 201,
    responses: invalidFramework,
    handle: ({ ctx, services, body }) => services.requirements.create(ctx, body),
  }),
  route({
    method: 'get',
    path: `${V1}/requirements/{id}`,
    operationId: 'getRequirement',
    response: C.RequirementDetail,
    summary: 'One requirement, all fields',
    tag: 'requirements',
    permission: 'read:requirements',
    responses: notFound,
    handle: ({ ctx, services, params }) => services.requirements.get(ctx, params.id),
  }),
  route({
    method: 'put',
    path: `${V1}/requirements/{id}`,
    operationId: 'updateRequirement',
    response: C.RequirementDetail,
    summary: 'Partial update (e.g. status, implementation); returns the updated requirement',
    tag: 'requirements',
    permission: 'write:requirements',
    request: { body: UpdateRequirementInput, example: { status: 'in-progress' } },
    responses: { ...notFound, ...invalidFramework },
    handle: ({ ctx, services, params, body }) => services.requirements.update(ctx, params.id, body),
  }),
  route({
    method: 'post',
    path: `${V1}/requirements/{id}/validate`,
    operationId: 'validateRequirement',
    response: C.ValidationResult,
    summary: 'Validate a requirement and record the outcome on it',
    tag: 'requirements',
    permission: 'write:requirements',
    responses: notFound,
    handle: ({ ctx, services, params }) => services.requirements.validate(ctx, params.id),
  }),

  // --- compliance status and frameworks ---
  route({
    method: 'get',
    path: `${V1}/compliance/status`,
    operationId: 'getComplianceStatus',
    response: C.ComplianceStatus,
    summary: 'Compliance score and status per framework (one framework when `framework` is given)',
    tag: 'compliance',
    permission: 'read:compliance',
    request: { query: z.object({ framework: z.enum(SUPPORTED_FRAMEWORKS as [string, ...string[]]).optional() }) },
    responses: invalidFramework,
    handle: ({ ctx, services, query }) => services.complianceStatus.getStatus(ctx, query.framework as string | undefined),
  }),
  route({
    method: 'get',
    path: `${V1}/frameworks`,
    operationId: 'listFrameworks',
    response: C.FrameworkList,
    summary: 'Supported compliance frameworks',
    tag: 'frameworks',
    permission: 'read:compliance',
    handle: ({ ctx, services }) => services.frameworks.list(ctx),
  }),
  route({
    method: 'get',
    path: `${V1}/frameworks/{id}`,
    operationId: 'getFramework',
    response: C.FrameworkDetail,
    summary: 'One framework with its clauses (`requirements`) and validation rules',
    tag: 'frameworks',
    permission: 'read:compliance',
    responses: invalidFramework,
    handle: ({ ctx, services, params }) => services.frameworks.get(ctx, params.id),
  }),

  // --- audit findings ---
  route({
    method: 'get',
    path: `${V1}/audits/findings`,
    operationId: 'listFindings',
    response: C.FindingPage,
    summary: 'Audit findings, newest first, filtered by framework, severity, status',
    tag: 'audits',
    permission: 'read:audits',
    request: { query: ListFindingsQuery },
    responses: invalidFramework,
    handle: ({ ctx, services, query }) => services.findings.list(ctx, query),
  }),
  route({
    method: 'post',
    path: `${V1}/audits/findings`,
    operationId: 'createFinding',
    response: C.Finding,
    summary: 'Record an audit finding (status open)',
    tag: 'audits',
    permission: 'write:audits',
    request: {
      body: CreateFindingInput,
      example: { title: 'Missing access review', framework: 'soc2', severity: 'medium', description: 'Quarterly access review not performed.' },
    },
    status: 201,
    responses: invalidFramework,
    handle: ({ ctx, services, body }) => services.findings.create(ctx, body),
  }),
  route({
    method: 'patch',
    path: `${V1}/audits/findings/{id}`,
    operationId: 'updateFinding',
    response: C.Finding,
    summary: 'Update a finding: status, resolution (required to resolve), resolvedAt, evidence (appended)',
    tag: 'audits',
    permission: 'write:audits',
    request: { body: UpdateFindingInput, example: { status: 'resolved', resolution: 'Access review performed and recorded.' } },
    responses: notFound,
    handle: ({ ctx, services, params, body }) => services.findings.update(ctx, params.id, body),
  }),
]);

import { z } from 'zod';
import { BatchValidateInput, CreateRequirementInput, ListRequirementsQuery, UpdateRequirementInput } from '../../domain/compliance/requirements/requirement.service';
import { defineRoutes, type RouteSpec } from '../route';

const API = '/api';
const err = (description: string) => ({ description });
const notFound = { 404: err('Not found') };
const invalidFramework = { 400: err('VALIDATION_ERROR, or INVALID_FRAMEWORK with details.supportedFrameworks') };
const route = (r: Omit<RouteSpec, 'envelope' | 'limiter' | 'tag'>): RouteSpec => ({ envelope: 'integration', limiter: 'plan', tag: 'short-listing', ...r });

/**
 * The shorter `/api` listing of the compliance spec (rule 3): the same domain operations as the
 * `/v1` paths under other addresses. Its `/api/dashboard/*` paths belong with the dashboard routes.
 */
export const complianceShortRoutes = defineRoutes([
  route({
    method: 'get',
    path: `${API}/requirements`,
    operationId: 'shortListRequirements',
    summary: 'List requirements (as GET /v1/requirements)',
    permission: 'read:requirements',
    request: { query: ListRequirementsQuery },
    responses: invalidFramework,
    handle: ({ ctx, services, query }) => services.requirements.list(ctx, query),
  }),
  route({
    method: 'post',
    path: `${API}/requirements`,
    operationId: 'shortCreateRequirement',
    summary: 'Create a requirement (as POST /v1/requirements)',
    permission: 'write:requirements',
    request: { body: CreateRequirementInput },
    status: 201,
    responses: invalidFramework,
    handle: ({ ctx, services, body }) => services.requirements.create(ctx, body),
  }),
  route({
    method: 'get',
    path: `${API}/requirements/{id}`,
    operationId: 'shortGetRequirement',
    summary: 'One requirement (as GET /v1/requirements/{id})',
    permission: 'read:requirements',
    responses: notFound,
    handle: ({ ctx, services, params }) => services.requirements.get(ctx, params.id),
  }),
  route({
    method: 'put',
    path: `${API}/requirements/{id}`,
    operationId: 'shortUpdateRequirement',
    summary: 'Partial update (as PUT /v1/requirements/{id})',
    permission: 'write:requirements',
    request: { body: UpdateRequirementInput },
    responses: { ...notFound, ...invalidFramework },
    handle: ({ ctx, services, params, body }) => services.requirements.update(ctx, params.id, body),
  }),
  route({
    method: 'delete',
    path: `${API}/requirements/{id}`,
    operationId: 'shortDeleteRequirement',
    summary: 'Soft-delete a requirement: kept for the audit trail, hidden from every read afterwards',
    permission: 'write:requirements',
    responses: notFound,
    handle: ({ ctx, services, params }) => services.requirements.remove(ctx, params.id),
  }),
  route({
    method: 'post',
    path: `${API}/validate/batch`,
    operationId: 'shortValidateBatch',
    summary: 'Validate up to 100 stored requirements by id, recording each outcome; unknown ids are reported in `errors`',
    permission: 'write:requirements',
    request: { body: BatchValidateInput },
    handle: ({ ctx, services, body }) => services.requirements.validateBatch(ctx, body),
  }),
  route({
    method: 'post',
    path: `${API}/validate`,
    operationId: 'shortValidate',
    summary: '`{requirementId}` validates a stored requirement and records the outcome (write:requirements); an inline requirement is validated without storing (read:requirements)',
    permission: 'read:requirements',
    request: { body: z.union([z.object({ requirementId: z.string() }), CreateRequirementInput]) },
    responses: { ...notFound, ...invalidFramework },
    handle: ({ ctx, services, body }) => services.requirements.validateAny(ctx, body),
  }),
  route({
    method: 'get',
    path: `${API}/validate/{id}`,
    operationId: 'shortLatestValidation',
    summary: 'The latest recorded validation of a requirement (`validation` null when never validated)',
    permission: 'read:requirements',
    responses: notFound,
    handle: ({ ctx, services, params }) => services.requirements.latestValidation(ctx, params.id),
  }),
  // `frameworks` before `{framework}`, so it is not taken for a framework id.
  route({
    method: 'get',
    path: `${API}/compliance/frameworks`,
    operationId: 'shortListFrameworks',
    summary: 'Supported frameworks (as GET /v1/frameworks)',
    permission: 'read:compliance',
    handle: ({ ctx, services }) => services.frameworks.list(ctx),
  }),
  route({
    method: 'get',
    path: `${API}/compliance/{framework}`,
    operationId: 'shortFrameworkStatus',
    summary: 'Compliance status of one framework: {framework, score, status, requirements, lastAssessment}',
    permission: 'read:compliance',
    responses: invalidFramework,
    handle: ({ ctx, services, params }) => services.complianceStatus.frameworkStatus(ctx, params.framework),
  }),
  route({
    method: 'post',
    path: `${API}/compliance/{framework}/assess`,
    operationId: 'shortAssessFramework',
    summary: 'Recompute a framework’s compliance now and record it in the history; returns its status',
    permission: 'write:compliance',
    responses: invalidFramework,
    handle: ({ ctx, services, params }) => services.complianceStatus.assess(ctx, params.framework),
  }),
]);

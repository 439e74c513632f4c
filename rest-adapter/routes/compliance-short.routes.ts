import { BatchValidateInput, ValidateInput } from '../../domain/compliance/requirements/requirement.inputs';
import { defineRoutes, type RouteSpec, errorResponse, routesWith } from '../route';
import { complianceRoutes } from './compliance.routes';
import * as C from '../schemas/compliance';

const API = '/api';
const notFound = { 404: errorResponse('Not found') };
const invalidFramework = { 400: errorResponse('VALIDATION_ERROR, or INVALID_FRAMEWORK with details.supportedFrameworks') };
const route = routesWith({ envelope: 'integration', limiter: 'plan', tag: 'short-listing' } as const);

/** The same operation as a `/v1` route, under its `/api` address. */
function alias(v1OperationId: string, path: string, operationId: string): RouteSpec {
  const of = complianceRoutes.find((r) => r.operationId === v1OperationId);
  if (!of) throw new Error(`no /v1 route ${v1OperationId}`);
  return { ...of, path, operationId, tag: 'short-listing', summary: `${of.summary} (as ${of.method.toUpperCase()} ${of.path})` };
}

/**
 * The shorter `/api` listing of the compliance spec (rule 3): the same domain operations as the
 * `/v1` paths under other addresses. Its `/api/dashboard/*` paths belong with the dashboard routes.
 */
export const complianceShortRoutes = defineRoutes([
  alias('listRequirements', `${API}/requirements`, 'shortListRequirements'),
  alias('createRequirement', `${API}/requirements`, 'shortCreateRequirement'),
  alias('getRequirement', `${API}/requirements/{id}`, 'shortGetRequirement'),
  alias('updateRequirement', `${API}/requirements/{id}`, 'shortUpdateRequirement'),
  route({
    method: 'delete',
    path: `${API}/requirements/{id}`,
    operationId: 'shortDeleteRequirement',
    response: C.RequirementDeleted,
    summary: 'Soft-delete a requirement: kept for the audit trail, hidden from every read afterwards',
    permission: 'write:requirements',
    responses: notFound,
    handle: ({ ctx, services, params }) => services.requirements.remove(ctx, params.id),
  }),
  route({
    method: 'post',
    path: `${API}/validate/batch`,
    operationId: 'shortValidateBatch',
    response: C.BatchValidateResult,
    summary: 'Validate up to 100 stored requirements by id, recording each outcome; unknown ids are reported in `errors`',
    permission: 'write:requirements',
    request: { body: BatchValidateInput, example: { requirementIds: ['req_0000000000000000000000000'] } },
    handle: ({ ctx, services, body }) => services.requirements.validateBatch(ctx, body),
  }),
  route({
    method: 'post',
    path: `${API}/validate`,
    operationId: 'shortValidate',
    response: C.ValidationResult,
    summary:
      '`{requirementId}` validates a stored requirement and records the outcome (write:requirements); an inline requirement is validated without storing (read:requirements)',
    permission: 'read:requirements',
    request: { body: ValidateInput },
    responses: { ...notFound, ...invalidFramework },
    handle: ({ ctx, services, body }) => services.requirements.validateAny(ctx, body),
  }),
  route({
    method: 'get',
    path: `${API}/validate/{id}`,
    operationId: 'shortLatestValidation',
    response: C.LatestValidation,
    summary: 'The latest recorded validation of a requirement (`validation` null when never validated)',
    permission: 'read:requirements',
    responses: notFound,
    handle: ({ ctx, services, params }) => services.requirements.latestValidation(ctx, params.id),
  }),
  // `frameworks` before `{framework}`, so it is not taken for a framework id.
  alias('listFrameworks', `${API}/compliance/frameworks`, 'shortListFrameworks'),
  route({
    method: 'get',
    path: `${API}/compliance/{framework}`,
    operationId: 'shortFrameworkStatus',
    response: C.ShortFrameworkStatus,
    summary: 'Compliance status of one framework: {framework, score, status, requirements, lastAssessment}',
    permission: 'read:compliance',
    responses: invalidFramework,
    handle: ({ ctx, services, params }) => services.complianceStatus.frameworkStatus(ctx, params.framework),
  }),
  route({
    method: 'post',
    path: `${API}/compliance/{framework}/assess`,
    operationId: 'shortAssessFramework',
    response: C.ShortFrameworkStatus,
    summary: 'Recompute a framework’s compliance now and record it in the history; returns its status',
    permission: 'write:compliance',
    responses: invalidFramework,
    handle: ({ ctx, services, params }) => services.complianceStatus.assess(ctx, params.framework),
  }),
]);

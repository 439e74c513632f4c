/**
 * `node dist/scripts/check-client-drift.js`: fails (exit 1) when any of the four clients
 * (clients/typescript, python, go, rust) lacks a method or an operation-table entry for an operation
 * of the OpenAPI document the gateway serves, or lists one the document does not have. `npm run
 * codegen` runs the same check after it regenerates the clients.
 */
import path from 'node:path';
import { ROUTE_TABLE } from '../rest-adapter/route-table';
import { buildOpenApi } from '../rest-adapter/openapi';
import { checkClientDrift, documentOperations } from './client-codegen/drift';

const ROOT = path.resolve(__dirname, '../..');
const doc = JSON.parse(JSON.stringify(buildOpenApi(ROUTE_TABLE)));
const problems = checkClientDrift(doc, ROOT);
if (problems.length) {
  console.error(`The clients drifted from the OpenAPI document:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`every operation of the document (${documentOperations(doc).length}) has a method in the typescript, python, go and rust clients`);

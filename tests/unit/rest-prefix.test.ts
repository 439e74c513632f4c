import { REST_PREFIX } from '../../gateway/start/transports';
import { ROUTE_TABLE } from '../../rest-adapter/route-table';

/** Only paths under REST's prefixes enter the route table's express router (gateway/start/transports.ts). */
test('every documented REST path is under a prefix the REST router is entered for', () => {
  for (const route of ROUTE_TABLE) expect(route.path).toMatch(REST_PREFIX);
  for (const other of ['/graphql', '/trpc/compliance.requirements', '/', '/assets/index.js', '/metrics']) expect(other).not.toMatch(REST_PREFIX);
});

import { restLinks } from '../../rest-adapter/links';
import { ROUTE_TABLE } from '../../rest-adapter/route-table';

const HASH = 'a'.repeat(64);

test('the addresses the domain hands out are the documented REST paths', () => {
  const links = restLinks();
  expect(links.audio(HASH)).toBe(`/api/v1/audio/${HASH}`);
  expect(links.audioStream(HASH)).toBe(`/api/v1/audio/${HASH}/stream`);
  expect(links.audioChunk(HASH, 3)).toBe(`/api/v1/audio/${HASH}/chunks/3`);
  expect(links.generationStatus(HASH)).toBe(`/api/v1/generations/${HASH}`);
  expect(links.reportDownload('compliance', 'rpt_1')).toBe('/v1/compliance/reports/rpt_1/download');
  expect(links.reportDownload('dashboard', 'rpt_2')).toBe('/v1/dashboard/reports/rpt_2/download');
  expect(links.reportInstructions()).toEqual({ verify: 'POST /v1/compliance/reports/{id}/verify', sign: 'POST /v1/compliance/reports/{id}/signatures' });
});

test('a link to a route the table does not have fails at start-up, not in an answer', () => {
  expect(() => restLinks(ROUTE_TABLE.filter((r) => r.operationId !== 'streamAudio'))).toThrow(/streamAudio/);
});

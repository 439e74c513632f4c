import fc from 'fast-check';
import {
  CSV_COLUMNS,
  REPORT_MEDIA_TYPES,
  escapeCsvField,
  isReportFormat,
  neutraliseFormula,
  renderReport,
  toCsv,
  type ReportModel,
} from '../../domain/compliance/reports/render';
import { execFileSync } from 'node:child_process';
import { parseCsv } from '../helpers/csv';

/** The page text as a reader's tools see it: poppler's pdftotext (the fonts are embedded, so glyph codes are not text). */
function extractPdfText(pdf: Buffer): string {
  return execFileSync('pdftotext', ['-layout', '-enc', 'UTF-8', '-', '-'], { input: pdf }).toString('utf8');
}

const pageCount = (pdf: Buffer) => (pdf.toString('latin1').match(/\/Type \/Page\b(?!s)/g) ?? []).length;

function baseModel(): ReportModel {
  return {
    reportId: 'RPT-2024-0042',
    kind: 'compliance',
    title: 'Quarterly Compliance Report',
    framework: 'fda21cfr11',
    generatedAt: '2024-04-02T09:30:00.000Z',
    period: { start: '2024-01-01T00:00:00.000Z', end: '2024-03-31T23:59:59.999Z' },
    summary: {
      overallScore: 87,
      frameworks: [{ id: 'fda21cfr11', score: 87, status: 'at_risk', total: 40, completed: 30, inProgress: 6, pending: 4 }],
    },
    requirements: [
      {
        id: 'REQ-1',
        title: 'Audit trail for batch record edits',
        framework: 'fda21cfr11',
        status: 'completed',
        priority: 'high',
        createdAt: '2024-01-05T08:00:00.000Z',
        updatedAt: '2024-02-10T08:00:00.000Z',
        validationStatus: 'valid',
      },
      {
        id: 'REQ-2',
        title: 'Signature, "meaning" shown\non printouts',
        framework: 'fda21cfr11',
        status: 'in_progress',
        priority: 'medium',
        createdAt: '2024-01-06T08:00:00.000Z',
        updatedAt: '2024-03-01T08:00:00.000Z',
        validationStatus: null,
      },
    ],
    findings: [
      {
        id: 'FND-7',
        title: '=HYPERLINK("http://evil.example","click")',
        framework: 'fda21cfr11',
        severity: 'major',
        status: 'open',
        discoveredAt: '2024-02-01T00:00:00.000Z',
        dueDate: '2024-04-30',
        resolvedAt: null,
      },
    ],
    evidence: [{ findingId: 'FND-7', items: ['audit-export-2024-02.pdf', '+cmd|calc', 'Reviewer notes, part 1'] }],
  };
}

describe('CSV primitives', () => {
  it('quotes only when needed and doubles embedded quotes', () => {
    expect(escapeCsvField('plain')).toBe('plain');
    expect(escapeCsvField('a,b')).toBe('"a,b"');
    expect(escapeCsvField('say "hi"')).toBe('"say ""hi"""');
    expect(escapeCsvField('line\nbreak')).toBe('"line\nbreak"');
    expect(escapeCsvField('cr\ronly')).toBe('"cr\ronly"');
  });

  it.each(['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx'])('neutralises formula trigger %p', (value) => {
    expect(neutraliseFormula(value)).toBe(`'${value}`);
  });

  it('leaves safe text and numbers alone', () => {
    expect(neutraliseFormula('a=b')).toBe('a=b');
    expect(toCsv([[-5, 0, 1.5, null, undefined, true, 'x']])).toBe('-5,0,1.5,,,true,x\r\n');
    expect(toCsv([[Number.NaN, Infinity]])).toBe(',\r\n');
  });

  it('round-trips arbitrary text through an independent parser', () => {
    const nasty = ['a,b', 'quote " inside', '"starts', 'multi\r\nline', 'lf\nonly', '', ' spaced ', 'üñïçødé ✓', ',,,'];
    expect(parseCsv(toCsv([nasty, ['x']]))).toEqual([nasty, ['x']]);
  });
});

describe('CSV property', () => {
  it('any grid of strings survives write + parse (formula cells gain a leading quote)', () => {
    const cell = fc.string({ unit: fc.constantFrom('a', 'Z', '1', ' ', ',', '"', "'", '\r', '\n', '\t', '=', '+', '-', '@', 'é', '✓') });
    fc.assert(
      fc.property(fc.array(fc.array(cell, { minLength: 1, maxLength: 6 }), { maxLength: 6 }), (grid) => {
        const expected = grid.map((row) => row.map((value) => (/^[=+\-@\t\r]/.test(value) ? `'${value}` : value)));
        expect(parseCsv(toCsv(grid))).toEqual(expected);
      }),
      { numRuns: 300, seed: 4180 },
    );
  });
});

describe('renderReport csv', () => {
  it('writes one header row then one row per section entry', async () => {
    const buffer = await renderReport('csv', baseModel());
    const text = buffer.toString('utf8');
    expect(text.charCodeAt(0)).not.toBe(0xfeff);
    const rows = parseCsv(text);
    expect(rows[0]).toEqual([...CSV_COLUMNS]);
    expect(rows.slice(1).map((row) => row[0])).toEqual([
      'report',
      'framework',
      'requirement',
      'requirement',
      'finding',
      'evidence',
      'evidence',
      'evidence',
    ]);
    for (const row of rows) expect(row).toHaveLength(CSV_COLUMNS.length);
  });

  it('preserves commas, quotes and newlines and neutralises formulas', async () => {
    const rows = parseCsv((await renderReport('csv', baseModel())).toString('utf8'));
    const column = (name: (typeof CSV_COLUMNS)[number]) => CSV_COLUMNS.indexOf(name);
    const byId = (id: string) => rows.find((row) => row[column('id')] === id)!;

    expect(byId('REQ-2')[column('title')]).toBe('Signature, "meaning" shown\non printouts');
    expect(byId('REQ-2')[column('validation_status')]).toBe('');
    expect(byId('REQ-1')[column('created_at')]).toBe('2024-01-05T08:00:00.000Z');
    expect(byId('FND-7')[column('title')]).toBe(`'=HYPERLINK("http://evil.example","click")`);
    expect(byId('FND-7')[column('due_date')]).toBe('2024-04-30');

    const evidence = rows.filter((row) => row[0] === 'evidence').map((row) => [row[column('finding_id')], row[column('evidence')]]);
    expect(evidence).toEqual([
      ['FND-7', 'audit-export-2024-02.pdf'],
      ['FND-7', "'+cmd|calc"],
      ['FND-7', 'Reviewer notes, part 1'],
    ]);

    const report = rows[1];
    expect(report[column('id')]).toBe('RPT-2024-0042');
    expect(report[column('kind')]).toBe('compliance');
    expect(report[column('score')]).toBe('87');
    expect(report[column('period_end')]).toBe('2024-03-31T23:59:59.999Z');
    expect(rows[2][column('in_progress')]).toBe('6');
  });

  it('handles an empty report', async () => {
    const model: ReportModel = {
      ...baseModel(),
      framework: null,
      period: { start: null, end: null },
      summary: { overallScore: 0, frameworks: [] },
      requirements: [],
      findings: [],
      evidence: undefined,
    };
    const rows = parseCsv((await renderReport('csv', model)).toString('utf8'));
    expect(rows).toHaveLength(2);
    expect(rows[1][0]).toBe('report');
  });
});

describe('renderReport json', () => {
  it('parses back to the same model', async () => {
    const model = baseModel();
    const buffer = await renderReport('json', model);
    expect(JSON.parse(buffer.toString('utf8'))).toEqual(model);
    expect(buffer.toString('utf8')).toContain('\n  "reportId": "RPT-2024-0042"');
  });
});

describe('renderReport pdf', () => {
  it('produces a well-formed PDF with the title in metadata and on the page, in embedded fonts', async () => {
    const pdf = await renderReport('pdf', baseModel(), { compress: false });
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pdf.toString('latin1').trimEnd().endsWith('%%EOF')).toBe(true);
    expect(pdf.toString('latin1')).toContain('(Quarterly Compliance Report)');
    // DejaVu Sans is embedded (a subset); no unembedded standard-14 font is referenced.
    expect(pdf.toString('latin1')).toMatch(/\/BaseFont \/[A-Z]{6}\+DejaVuSans/);
    expect(pdf.toString('latin1')).toContain('/FontFile2');
    expect(pdf.toString('latin1')).not.toContain('/BaseFont /Helvetica');
    expect(pdf.toString('latin1')).toContain('(D:20240402093000Z)');

    const text = extractPdfText(pdf);
    for (const expected of [
      'Quarterly Compliance Report',
      'Report ID: RPT-2024-0042',
      'Generated: 2024-04-02 09:30:00 UTC',
      'Period: 2024-01-01 to 2024-03-31',
      'Overall score: 87 / 100',
      'FDA 21 CFR Part 11',
      'at risk',
      'Requirements (2)',
      'REQ-1 — Audit trail for batch record edits',
      'Findings (1)',
      'FND-7',
      'Evidence',
      'audit-export-2024-02.pdf',
      'Approval',
      'Page 1 of 2',
    ]) {
      expect(text).toContain(expected);
    }
  });

  it('is byte-for-byte reproducible for the same model', async () => {
    const first = await renderReport('pdf', baseModel());
    const second = await renderReport('pdf', baseModel());
    expect(first.equals(second)).toBe(true);
    expect(first.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });

  it('breaks long sections across pages, numbers every page and repeats table headers', async () => {
    const model = baseModel();
    model.requirements = Array.from({ length: 150 }, (_, i) => ({
      ...model.requirements[0],
      id: `REQ-${String(i + 1).padStart(3, '0')}`,
      title: `Requirement number ${i + 1} ${'with a longer title that wraps onto another line '.repeat(i % 3)}`,
    }));
    model.summary.frameworks = Array.from({ length: 60 }, (_, i) => ({ ...model.summary.frameworks[0], id: `framework-${i}` }));
    const pdf = await renderReport('pdf', model, { compress: false });
    const text = extractPdfText(pdf);
    const pages = Number(/Page 1 of (\d+)/.exec(text)![1]);
    expect(pages).toBeGreaterThan(3);
    expect(text).toContain(`Page ${pages} of ${pages}`);
    expect(text).toContain('REQ-150');
    // The summary table's header is repeated at the top of its continuation page.
    expect((text.match(/Implementation/g) ?? []).length).toBeGreaterThan(1);
  });

  it('keeps every character: Unicode text is set in embedded fonts, never replaced', async () => {
    const model: ReportModel = {
      ...baseModel(),
      title: '✓ 数据 «sofort» — Résumé “privacy” Ωμέγα Жизнь',
      framework: null,
      generatedAt: 'not a date',
      period: { start: null, end: null },
      summary: { overallScore: 0, frameworks: [] },
      requirements: [],
      findings: [],
      evidence: [],
    };
    const pdf = await renderReport('pdf', model, { compress: false });
    const text = extractPdfText(pdf);
    expect(text).toContain('✓ 数据 «sofort» — Résumé “privacy” Ωμέγα Жизнь');
    expect(text).not.toContain('?');
    // CJK is set in the embedded Noto Sans Hans subset, only because this report needs it.
    expect(pdf.toString('latin1')).toMatch(/\/BaseFont \/[A-Z]{6}\+NotoSansHans-/);
    expect((await renderReport('pdf', baseModel(), { compress: false })).toString('latin1')).not.toContain('NotoSansHans');
    expect(text).toContain('No requirements in this report.');
    expect(text).toContain('All frameworks');
    expect(text).toContain('Period: All time');
    expect(text).toContain('Generated: not a date');
  });

  it('never breaks an identifier inside a table cell: the type shrinks instead', async () => {
    const model = baseModel();
    const longId = 'fnd_0123456789abcdefghijklmnopqrstuvwxyz_ABCDEFGHIJ';
    model.traceability = {
      framework: 'fda21cfr11',
      frameworkName: 'FDA 21 CFR Part 11',
      version: '1997',
      generatedAt: model.generatedAt,
      findingsIncluded: true,
      summary: { clauses: 1, covered: 1, gaps: 0, coveragePercent: 100, requirements: 1, unmappedRequirements: 0, unassignedRequirements: 0, openFindings: 1, resolvedFindings: 0 },
      clauses: [
        {
          clauseId: 'fda21cfr11-11.10e',
          section: '11.10(e)',
          title: 'Audit trail',
          category: 'Closed system controls',
          covered: true,
          requirements: [
            {
              id: 'REQ-1',
              title: 'Audit trail',
              status: 'completed',
              priority: 'high',
              clauses: ['11.10(e)'],
              latestValidation: null,
              openFindings: [{ id: longId, title: 't', description: null, severity: 'high', status: 'open', discoveredAt: model.generatedAt, dueDate: null, resolution: null, resolvedAt: null, evidence: [] }],
              resolvedFindings: [],
              evidence: [],
            },
          ],
        },
      ],
      gaps: [],
      unmappedRequirements: [],
      unlinkedFindings: [],
    };
    const text = extractPdfText(await renderReport('pdf', model, { compress: false }));
    expect(text).toContain(longId);
  });
});

describe('format helpers', () => {
  it('rejects unknown formats', async () => {
    expect(isReportFormat('pdf')).toBe(true);
    expect(isReportFormat('xlsx')).toBe(false);
    await expect(renderReport('xlsx' as never, baseModel())).rejects.toThrow(RangeError);
    expect(REPORT_MEDIA_TYPES.csv).toBe('text/csv; charset=utf-8');
  });
});

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
import { execFileSync, spawnSync } from 'node:child_process';
import { directionOf, visualRuns } from '../../domain/compliance/reports/render/bidi';
import { face } from '../../domain/compliance/reports/render/fonts';
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
    expect(rows.slice(1).map((row) => row[0])).toEqual(['report', 'framework', 'requirement', 'requirement', 'finding', 'evidence', 'evidence', 'evidence']);
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
    // Tags broken across pages are closed and reopened page by page: poppler reads it without a warning.
    expect(spawnSync('pdftotext', ['-', '-'], { input: pdf }).stderr.toString()).toBe('');
    const streams = pdf
      .toString('latin1')
      .split('stream\n')
      .slice(1)
      .map((s) => s.split('\nendstream')[0]);
    for (const content of streams) expect((content.match(/ BDC\b| BMC\b/g) ?? []).length).toBe((content.match(/\bEMC\b/g) ?? []).length);
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

  function matrixWith(model: ReportModel, openFindingIds: string[]): ReportModel['traceability'] {
    const finding = (id: string) => ({
      id,
      title: 't',
      description: null,
      severity: 'high',
      status: 'open',
      discoveredAt: model.generatedAt,
      dueDate: null,
      resolution: null,
      resolvedAt: null,
      evidence: [],
    });
    return {
      framework: 'fda21cfr11',
      frameworkName: 'FDA 21 CFR Part 11',
      version: '1997',
      generatedAt: model.generatedAt,
      findingsIncluded: true,
      summary: {
        clauses: 1,
        covered: 1,
        gaps: 0,
        coveragePercent: 100,
        requirements: 1,
        unmappedRequirements: 0,
        unassignedRequirements: 0,
        openFindings: openFindingIds.length,
        resolvedFindings: 0,
      },
      clauses: [
        {
          clauseId: 'fda21cfr11-11.10e',
          section: '11.10(e)',
          title: 'Audit trail',
          category: 'Closed system controls',
          covered: true,
          requirements: [
            {
              id: 'req_0m3k9xabc0123456789abcdef',
              title: 'Audit trail',
              status: 'completed',
              priority: 'high',
              clauses: ['11.10(e)'],
              latestValidation: null,
              openFindings: openFindingIds.map(finding),
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
  }
  /** Every font size the page content sets (uncompressed streams): `/F1 8 Tf`. */
  const fontSizes = (pdf: Buffer) => [...pdf.toString('latin1').matchAll(/\/F\d+ ([\d.]+) Tf/g)].map((m) => Number(m[1]));

  it('sets identifiers in the traceability matrix whole and readable: never below 6.5 pt, never broken at their real length (issue 35)', async () => {
    const model = baseModel();
    const ids = ['fnd_0m3k9xabc0123456789abcdef', 'fnd_0m3k9xdef0123456789abcdef'];
    model.traceability = matrixWith(model, ids);
    const pdf = await renderReport('pdf', model, { compress: false });
    const lines = extractPdfText(pdf).split('\n');
    for (const id of [...ids, 'req_0m3k9xabc0123456789abcdef']) expect(lines.some((line) => line.includes(id))).toBe(true);
    expect(Math.min(...fontSizes(pdf))).toBeGreaterThanOrEqual(6.5);

    // An identifier too long for its column even at 6.5 pt is broken across lines rather than set smaller.
    const absurd = 'fnd_0123456789abcdefghijklmnopqrstuvwxyz_ABCDEFGHIJ';
    model.traceability = matrixWith(model, [absurd]);
    const long = await renderReport('pdf', model, { compress: false });
    expect(Math.min(...fontSizes(long))).toBeGreaterThanOrEqual(6.5);
    expect(extractPdfText(long).replace(/[\s—]+/g, '')).toContain(absurd);
  });

  it('prints no "−0 / none" penalty: no penalty and no cap read "—", a penalty with a cap reads "−24, cap 69.9" (issue 35)', async () => {
    const model = baseModel();
    const scoring = (penalty: number, cap: number | null) => ({
      coverage: { clauses: 17, covered: 10, percent: 58.8 },
      implementation: 80,
      validation: 70,
      base: 69.4,
      findings: { open: { critical: 0, high: cap ? 2 : 0, medium: penalty ? 1 : 0, low: 0 }, penalty, cap },
    });
    model.summary.frameworks = [
      { ...model.summary.frameworks[0], id: 'fda21cfr11', scoring: scoring(0, null) },
      { ...model.summary.frameworks[0], id: 'gdpr', scoring: scoring(24, 69.9) },
    ] as ReportModel['summary']['frameworks'];
    const text = extractPdfText(await renderReport('pdf', model, { compress: false }));
    expect(text).not.toContain('−0');
    expect(text).not.toContain('none');
    expect(text).toContain('−24, cap 69.9');
  });
});

/** pdftotext marks a right-to-left line with directional embeddings; the text is what is between them. */
const logical = (text: string) => text.replace(/[\u202a-\u202e\u2066-\u2069]/g, '');

describe('renderReport pdf: every script shaped, ordered and extractable (issue 35)', () => {
  const ARABIC_TITLE = 'تقرير التدقيق الإلكتروني';
  const HEBREW = 'דרישת אבטחה למערכת';
  const ARABIC_LAM_ALEF = 'الإلكتروني';
  const model = (): ReportModel => ({
    ...baseModel(),
    title: ARABIC_TITLE,
    summary: { overallScore: 50, frameworks: [] },
    requirements: [
      { ...baseModel().requirements[0], id: 'REQ-1', title: HEBREW, description: 'Audit report تقرير التدقيق covers 数据 and Ωμέγα' },
      { ...baseModel().requirements[0], id: 'REQ-2', title: 'Ωμέγα 数据 ✓ Résumé', description: 'نظام إدارة الجودة' },
    ],
    findings: [{ ...baseModel().findings[0], title: 'التوقيع الإلكتروني مفقود', description: 'שלום עולם' }],
    evidence: [{ findingId: 'FND-7', items: ['سجل التدقيق'] }],
  });

  it('pdftotext gives the logical text: Arabic words in order, lam-alef as written, Hebrew, Latin, CJK and Greek beside them', async () => {
    const pdf = await renderReport('pdf', model(), { compress: false });
    const lines = logical(extractPdfText(pdf))
      .split('\n')
      .map((l) => l.trim());
    // The title is a line of its own, its words in reading order (not "التدقيقتقرير").
    expect(lines).toContain(ARABIC_TITLE);
    expect(lines.join('\n')).not.toContain('اإللكتروني');
    expect(lines).toContain(`REQ-1 — ${HEBREW}`);
    // A mixed line: the words in reading order (pdftotext moves the space at a direction change into the embedding).
    expect(lines.map((l) => l.replace(/\s+/g, ''))).toContain('Description:Auditreportتقريرالتدقيقcovers数据andΩμέγα');
    expect(lines).toContain('REQ-2 — Ωμέγα 数据 ✓ Résumé');
    expect(lines).toContain('Description: نظام إدارة الجودة');
    expect(lines).toContain('FND-7 — التوقيع الإلكتروني مفقود');
    expect(lines).toContain('Description: שלום עולם');
    expect(lines).toContain('• سجل التدقيق');
  });

  it('the lam-alef ligature glyph maps to both its characters; Arabic is shaped (joining forms, not the isolated letters)', async () => {
    const pdf = await renderReport('pdf', { ...model(), title: ARABIC_LAM_ALEF, requirements: [], findings: [], evidence: [] }, { compress: false });
    expect(
      logical(extractPdfText(pdf))
        .split('\n')
        .map((l) => l.trim()),
    ).toContain(ARABIC_LAM_ALEF);
    const cmaps = pdf
      .toString('latin1')
      .match(/beginbfrange[\s\S]*?endbfrange/g)!
      .join('\n');
    // One glyph for lam + hamza-under alef: mapped to both characters (display order, as extractors read it).
    expect(cmaps).toMatch(/<0625 0644>/);
    // The letters are shaped by fontkit: joining forms are other glyphs than the isolated letters,
    // so the drawn run has fewer glyphs than characters (the ligature) and is not the plain cmap lookup.
    const fontkit = require('fontkit') as { create(b: Buffer): unknown };
    const font = fontkit.create(face('bold').bytes) as {
      layout(t: string, f: string[]): { glyphs: { id: number }[] };
      glyphForCodePoint(c: number): { id: number };
    };
    const shaped = font.layout(ARABIC_LAM_ALEF, []).glyphs.map((g) => g.id);
    const plain = [...ARABIC_LAM_ALEF].map((c) => font.glyphForCodePoint(c.codePointAt(0)!).id);
    expect(shaped.length).toBe(plain.length - 1);
    expect(shaped).not.toEqual([...plain].reverse());
  });

  it('orders a mixed line by the bidi algorithm: Latin left to right, the Arabic run right to left within it', async () => {
    const runs = visualRuns('Audit report تقرير التدقيق covers', {}, 'ltr');
    expect(runs.map((r) => [r.text, r.rtl])).toEqual([
      ['Audit report ', false],
      ['تقرير التدقيق', true],
      [' covers', false],
    ]);
    // In a right-to-left paragraph the Latin run sits to the left of the Arabic it follows.
    expect(directionOf('تقرير Audit')).toBe('rtl');
    expect(visualRuns('تقرير Audit', {}, 'rtl').map((r) => [r.text, r.rtl])).toEqual([
      ['Audit', false],
      ['تقرير ', true],
    ]);
    expect(directionOf('Ωμέγα 数据 (تقرير)')).toBe('ltr');
  });

  it('renders the same bytes twice, and is a tagged PDF/A-2b with its language', async () => {
    const first = await renderReport('pdf', model(), { compress: false });
    expect(first.equals(await renderReport('pdf', model(), { compress: false }))).toBe(true);
    const text = first.toString('latin1');
    expect(text.startsWith('%PDF-1.7')).toBe(true);
    const markInfo = /\/MarkInfo (\d+) 0 R/.exec(text)!;
    expect(text).toMatch(new RegExp(`\\n${markInfo[1]} 0 obj\\s*<<\\s*/Marked true\\s*>>`));
    expect(text).toMatch(/\/Lang \(en\)/);
    expect(text).toMatch(/\/StructTreeRoot \d+ 0 R/);
    expect(text).toMatch(/\/S \/GTS_PDFA1/);
    expect(text).toMatch(/<pdfaid:part>2<\/pdfaid:part>/);
    expect(text).toMatch(/<pdfaid:conformance>B<\/pdfaid:conformance>/);
    // Every font is embedded, none of the standard 14.
    expect(text).not.toMatch(/\/BaseFont \/(Helvetica|Times|Courier|Symbol|ZapfDingbats)/);
    expect((text.match(/\/FontFile[23]/g) ?? []).length).toBe((text.match(/\/Type \/FontDescriptor/g) ?? []).length);
  });

  it('keeps the XMP metadata well-formed when the title or organisation has XML characters', async () => {
    const pdf = await renderReport('pdf', { ...baseModel(), title: 'R&D <Quality> "report"', organisation: 'Müller & Søn' }, { compress: false });
    const xmp = /<x:xmpmeta[\s\S]*<\/x:xmpmeta>/.exec(pdf.toString('utf8'))![0];
    expect(xmp).toContain('R&amp;D &lt;Quality&gt; &quot;report&quot;');
    expect(xmp).toContain('Müller &amp; Søn');
    expect(xmp).not.toMatch(/&(?!amp;|lt;|gt;|quot;)/);
    // The Info dictionary keeps the plain text.
    expect(pdf.toString('latin1')).toContain('(R&D <Quality> "report")');
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

import {
  COMMON_VALIDATION_RULES,
  FRAMEWORK_VALIDATION_RULES,
  RULE_IDS,
  SUPPORTED_FRAMEWORKS,
  getClause,
  getFramework,
  isFrameworkId,
  listFrameworks,
  type FrameworkId,
} from '../../domain/compliance/catalogue';

const sections = (id: FrameworkId): string[] => getFramework(id).clauses.map((clause) => clause.section);
const range = (prefix: string, from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, i) => `${prefix}${from + i}`);

describe('framework ids', () => {
  it('lists the four supported frameworks in a fixed order', () => {
    expect(SUPPORTED_FRAMEWORKS).toEqual(['iso13485', 'fda21cfr11', 'gdpr', 'soc2']);
    expect(listFrameworks().map((framework) => framework.id)).toEqual([...SUPPORTED_FRAMEWORKS]);
  });

  it('narrows only known ids', () => {
    expect(isFrameworkId('gdpr')).toBe(true);
    expect(isFrameworkId('GDPR')).toBe(false);
    expect(isFrameworkId('hipaa')).toBe(false);
    expect(isFrameworkId(undefined)).toBe(false);
    expect(isFrameworkId(42)).toBe(false);
  });

  it('returns undefined for unknown ids instead of throwing', () => {
    expect(getFramework('hipaa')).toBeUndefined();
    expect(getFramework('toString')).toBeUndefined();
  });
});

describe('framework metadata', () => {
  it.each([
    ['iso13485', '2016'],
    ['fda21cfr11', '1997'],
    ['gdpr', '2016/679'],
    ['soc2', '2017 (revised points of focus 2022)'],
  ] as const)('%s has version %s', (id, version) => {
    expect(getFramework(id).version).toBe(version);
  });

  it.each(SUPPORTED_FRAMEWORKS)('%s is internally consistent', (id) => {
    const framework = getFramework(id);
    expect(framework.name).toBeTruthy();
    expect(framework.description.length).toBeGreaterThan(40);

    const ids = framework.clauses.map((clause) => clause.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(sections(id)).size).toBe(ids.length);

    for (const clause of framework.clauses) {
      expect(clause.id.startsWith(`${id}-`)).toBe(true);
      expect(clause.id).toMatch(/^[a-z0-9.-]+$/);
      expect(framework.categories).toContain(clause.category);
      expect(clause.title.trim()).not.toBe('');
      expect(clause.description.length).toBeGreaterThan(20);
      expect(clause.keywords.length).toBeGreaterThan(0);
      for (const keyword of clause.keywords) expect(keyword).toBe(keyword.toLowerCase());
    }
    // Every declared category is actually used.
    for (const category of framework.categories) {
      expect(framework.clauses.some((clause) => clause.category === category)).toBe(true);
    }
  });

  it('is immutable shared data', () => {
    const framework = getFramework('gdpr');
    expect(Object.isFrozen(framework)).toBe(true);
    expect(Object.isFrozen(framework.clauses[0].keywords)).toBe(true);
    expect(() => {
      (framework.clauses as unknown as unknown[]).push({});
    }).toThrow(TypeError);
  });
});

describe('ISO 13485:2016 clauses', () => {
  const expected = [
    '4.1',
    '4.2.1',
    '4.2.2',
    '4.2.3',
    '4.2.4',
    '4.2.5',
    '5.1',
    '5.2',
    '5.3',
    '5.4',
    '5.5',
    '5.6',
    '6.1',
    '6.2',
    '6.3',
    '6.4',
    '7.1',
    '7.2',
    '7.3',
    '7.3.6',
    '7.3.7',
    '7.4',
    '7.5',
    '7.5.9',
    '7.6',
    '8.1',
    '8.2',
    '8.2.1',
    '8.2.2',
    '8.3',
    '8.4',
    '8.5',
    '8.5.2',
    '8.5.3',
  ];

  it('contains the main clauses 4 to 8', () => {
    expect(sections('iso13485')).toEqual(expect.arrayContaining(expected));
    expect(sections('iso13485').length).toBeGreaterThanOrEqual(30);
  });

  it('only uses clause numbers 4-8 and keeps document order', () => {
    const list = sections('iso13485');
    for (const section of list) expect(section).toMatch(/^[4-8](\.\d+){1,2}$/);
    const numeric = (section: string) => section.split('.').map(Number);
    const sorted = [...list].sort((a, b) => {
      const [x, y] = [numeric(a), numeric(b)];
      for (let i = 0; i < Math.max(x.length, y.length); i++) {
        if ((x[i] ?? -1) !== (y[i] ?? -1)) return (x[i] ?? -1) - (y[i] ?? -1);
      }
      return 0;
    });
    expect(list).toEqual(sorted);
  });

  it('tags CAPA and design clauses with the keywords the engine relies on', () => {
    expect(getClause('iso13485', '8.5')?.keywords).toContain('capa');
    expect(getClause('iso13485', '7.3.6')?.keywords).toContain('verification');
    expect(getClause('iso13485', '7.3.7')?.keywords).toContain('validation');
    expect(getClause('iso13485', '4.2.4')?.keywords).toContain('document control');
    expect(getClause('iso13485', '8.2.2')?.keywords).toContain('complaint');
  });
});

describe('21 CFR Part 11 sections', () => {
  it('lists 11.10(a) through 11.10(k) separately, in order', () => {
    const paragraphs = 'abcdefghijk'.split('').map((letter) => `11.10(${letter})`);
    expect(paragraphs).toHaveLength(11);
    expect(sections('fda21cfr11').filter((section) => section.startsWith('11.10('))).toEqual(paragraphs);
  });

  it('contains exactly the expected sections', () => {
    expect(sections('fda21cfr11')).toEqual([
      ...'abcdefghijk'.split('').map((letter) => `11.10(${letter})`),
      '11.30',
      '11.50',
      '11.70',
      '11.100',
      '11.200',
      '11.300',
    ]);
  });

  it('derives stable ids', () => {
    expect(getClause('fda21cfr11', '11.10(e)')?.id).toBe('fda21cfr11-11.10e');
    expect(getClause('fda21cfr11', '11.10(e)')?.keywords).toEqual(expect.arrayContaining(['audit trail', 'audit log', 'time-stamped', 'record changes']));
  });
});

describe('GDPR articles', () => {
  const required = [5, 6, 7, 9, ...Array.from({ length: 11 }, (_, i) => 12 + i), 24, 25, 28, 30, 32, 33, 34, 35, 37, 44];

  it('contains every required article', () => {
    expect(required).toHaveLength(25);
    expect(sections('gdpr')).toEqual(required.map((article) => `Art. ${article}`));
    expect(getClause('gdpr', 'Art. 32')?.id).toBe('gdpr-art32');
  });

  it('covers lawful basis and data-subject rights keywords', () => {
    expect(getClause('gdpr', 'Art. 6')?.keywords).toEqual(expect.arrayContaining(['lawful basis', 'consent', 'legitimate interest', 'contract']));
    expect(getClause('gdpr', 'Art. 17')?.keywords).toEqual(expect.arrayContaining(['erasure', 'right to be forgotten']));
    expect(getClause('gdpr', 'Art. 32')?.keywords).toEqual(expect.arrayContaining(['encryption', 'pseudonymisation', 'access control']));
  });
});

describe('SOC 2 Trust Services Criteria', () => {
  const common = [
    ...range('CC1.', 1, 5),
    ...range('CC2.', 1, 3),
    ...range('CC3.', 1, 4),
    ...range('CC4.', 1, 2),
    ...range('CC5.', 1, 3),
    ...range('CC6.', 1, 8),
    ...range('CC7.', 1, 5),
    'CC8.1',
    ...range('CC9.', 1, 2),
  ];

  it('contains CC1.1 through CC9.2 (33 common criteria) in order', () => {
    expect(common).toHaveLength(33);
    expect(sections('soc2').filter((section) => section.startsWith('CC'))).toEqual(common);
  });

  it.each([
    ['CC1.', 5],
    ['CC2.', 3],
    ['CC3.', 4],
    ['CC4.', 2],
    ['CC5.', 3],
    ['CC6.', 8],
    ['CC7.', 5],
    ['CC8.', 1],
    ['CC9.', 2],
    ['A1.', 3],
    ['C1.', 2],
    ['PI1.', 5],
  ] as const)('has %s x%i', (prefix, count) => {
    expect(sections('soc2').filter((section) => section.startsWith(prefix))).toHaveLength(count);
  });

  it('contains the additional criteria A1, C1, PI1 and at least one entry for each of P1-P8', () => {
    const list = sections('soc2');
    expect(list).toEqual(expect.arrayContaining([...range('A1.', 1, 3), ...range('C1.', 1, 2), ...range('PI1.', 1, 5)]));
    for (let group = 1; group <= 8; group++) {
      expect(list.some((section) => section.startsWith(`P${group}.`))).toBe(true);
    }
  });
});

describe('validation rules in the catalogue', () => {
  it('every framework lists the common rules plus its own, with unique ids', () => {
    for (const framework of listFrameworks()) {
      const ids = framework.validationRules.map((rule) => rule.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toEqual([...COMMON_VALIDATION_RULES.map((rule) => rule.id), ...FRAMEWORK_VALIDATION_RULES[framework.id].map((rule) => rule.id)]);
      for (const rule of framework.validationRules) {
        expect(rule.name).toBeTruthy();
        expect(rule.description).toBeTruthy();
      }
    }
  });

  it('every rule id is listed by at least one framework', () => {
    const listed = new Set(listFrameworks().flatMap((framework) => framework.validationRules.map((rule) => rule.id)));
    for (const id of Object.values(RULE_IDS)) expect(listed).toContain(id);
  });

  it('framework-specific rules only appear on their framework', () => {
    const part11 = getFramework('fda21cfr11').validationRules.map((rule) => rule.id);
    const gdpr = getFramework('gdpr').validationRules.map((rule) => rule.id);
    expect(part11).toContain(RULE_IDS.part11AuditTrail);
    expect(gdpr).not.toContain(RULE_IDS.part11AuditTrail);
    expect(gdpr).toContain(RULE_IDS.gdprLawfulBasis);
  });
});

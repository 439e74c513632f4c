import { RULE_IDS, listFrameworks } from '../../domain/compliance/catalogue';
import {
  SEVERITY_PENALTY,
  VALIDITY_THRESHOLD,
  findAmbiguousTerms,
  isTestableCriterion,
  mapToClauses,
  validateRequirement,
  type RequirementForValidation,
  type ValidationResult,
} from '../../domain/compliance/validation';

/** A requirement written the way the rules ask for. */
const goodPart11: RequirementForValidation = {
  title: 'Audit trail for batch record edits',
  description:
    'Every change to an electronic batch record shall be captured in a secure, computer-generated audit trail so reviewers can reconstruct its history.',
  framework: 'fda21cfr11',
  category: 'Closed system controls',
  priority: 'high',
  acceptanceCriteria: [
    'Given a user edits a batch record, when the change is saved, then the audit trail records user ID, UTC timestamp, old value and new value',
    'Audit trail entries cannot be modified or deleted by any user, including administrators',
    'Audit trail entries are retained for at least 10 years and can be exported as a human-readable PDF copy',
  ],
  implementation: { testFile: 'tests/unit/audit-trail.test.ts', gitBranch: 'feat/audit-trail' },
  status: 'in_progress',
};

const ruleIds = (result: ValidationResult) => result.issues.map((issue) => issue.ruleId);
const issuesFor = (result: ValidationResult, ruleId: string) => result.issues.filter((issue) => issue.ruleId === ruleId);

describe('validateRequirement: well-formed requirement', () => {
  it('is valid with a perfect score and no suggestions', () => {
    const result = validateRequirement(goodPart11);
    expect(result.issues).toEqual([]);
    expect(result.score).toBe(100);
    expect(result.valid).toBe(true);
    expect(result.suggestions).toEqual([]);
  });

  it('maps to the Part 11 clauses its text talks about', () => {
    const mapping = validateRequirement(goodPart11).complianceMapping;
    expect(Object.keys(mapping)).toEqual(['fda21cfr11']);
    expect(mapping.fda21cfr11).toEqual(expect.arrayContaining(['11.10(b)', '11.10(c)', '11.10(e)']));
  });

  it('is deterministic and does not mutate its input', () => {
    const snapshot = JSON.parse(JSON.stringify(goodPart11));
    const first = validateRequirement(goodPart11);
    const second = validateRequirement(JSON.parse(JSON.stringify(goodPart11)));
    expect(second).toEqual(first);
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
    expect(goodPart11).toEqual(snapshot);
  });
});

describe('validateRequirement: basic rules', () => {
  it('errors on a blank title and warns on a vague short one', () => {
    expect(issuesFor(validateRequirement({ ...goodPart11, title: '   ' }), RULE_IDS.titleRequired)).toEqual([
      expect.objectContaining({ severity: 'error', field: 'title' }),
    ]);
    expect(issuesFor(validateRequirement({ ...goodPart11, title: 'Logging' }), RULE_IDS.titleSpecific)).toEqual([
      expect.objectContaining({ severity: 'warning', field: 'title' }),
    ]);
    expect(issuesFor(validateRequirement({ ...goodPart11, title: 'A'.repeat(20) + ' ' + 'b'.repeat(120) }), RULE_IDS.titleSpecific)).toEqual([
      expect.objectContaining({ severity: 'info' }),
    ]);
  });

  it('warns when the description is missing', () => {
    const result = validateRequirement({ ...goodPart11, description: null });
    expect(issuesFor(result, RULE_IDS.descriptionRequired)).toEqual([expect.objectContaining({ severity: 'warning', field: 'description' })]);
    expect(result.score).toBe(100 - SEVERITY_PENALTY.warning);
  });

  it.each([[undefined], [null], [[]], [['', '  ']]])('errors when acceptance criteria are %p', (criteria) => {
    const result = validateRequirement({ ...goodPart11, acceptanceCriteria: criteria as string[] | null | undefined });
    expect(issuesFor(result, RULE_IDS.acceptanceCriteriaRequired)).toEqual([expect.objectContaining({ severity: 'error', field: 'acceptanceCriteria' })]);
    expect(result.valid).toBe(false);
  });

  it('flags untestable criteria individually and quotes them', () => {
    const result = validateRequirement({
      ...goodPart11,
      acceptanceCriteria: [goodPart11.acceptanceCriteria![0], 'Works well', 'The audit trail is secure'],
    });
    const issues = issuesFor(result, RULE_IDS.acceptanceCriteriaTestable);
    expect(issues.map((issue) => issue.field)).toEqual(['acceptanceCriteria[1]', 'acceptanceCriteria[2]']);
    expect(issues[1].message).toContain('"The audit trail is secure"');
  });

  it('names each ambiguous word and the field it appears in', () => {
    const result = validateRequirement({
      ...goodPart11,
      title: 'Fast and robust audit trail export',
      description: 'Export should be user friendly, flexible etc. and/or TBD.',
    });
    const found = issuesFor(result, RULE_IDS.ambiguousLanguage).map((issue) => [issue.field, issue.message.match(/"([^"]+)"/)?.[1]]);
    expect(found).toEqual([
      ['title', 'fast'],
      ['title', 'robust'],
      ['description', 'user-friendly'],
      ['description', 'etc'],
      ['description', 'and/or'],
      ['description', 'flexible'],
      ['description', 'TBD'],
    ]);
    expect(issuesFor(result, RULE_IDS.modalShould)).toEqual([expect.objectContaining({ severity: 'info', field: 'description' })]);
    expect(result.suggestions).toContain('Replace "fast" with a measurable value or precise wording.');
  });

  it('does not flag ambiguous words inside other words', () => {
    expect(findAmbiguousTerms('Breakfast menu is steadfast; robustness tests are reasonableness checks')).toEqual([]);
    expect(findAmbiguousTerms('An Appropriate, ADEQUATE and user-friendly UI, etc.')).toEqual(['appropriate', 'adequate', 'user-friendly', 'etc']);
  });

  it('treats a missing test link as a warning while open and an error once completed', () => {
    const open = validateRequirement({ ...goodPart11, implementation: null });
    expect(issuesFor(open, RULE_IDS.testLinkRequired)).toEqual([expect.objectContaining({ severity: 'warning', field: 'implementation.testFile' })]);
    expect(open.valid).toBe(true);

    const completed = validateRequirement({
      ...goodPart11,
      status: 'completed',
      implementation: { completedAt: '2024-05-01T10:00:00Z' },
    });
    expect(issuesFor(completed, RULE_IDS.testLinkRequired)).toEqual([expect.objectContaining({ severity: 'error' })]);
    expect(completed.valid).toBe(false);
  });

  it('requires a valid completion date for completed requirements', () => {
    const missing = validateRequirement({ ...goodPart11, status: 'completed' });
    expect(issuesFor(missing, RULE_IDS.completionDateRequired)).toEqual([expect.objectContaining({ severity: 'error', field: 'implementation.completedAt' })]);
    const invalid = validateRequirement({
      ...goodPart11,
      status: 'completed',
      implementation: { testFile: 'a.test.ts', completedAt: 'last Tuesday' },
    });
    expect(issuesFor(invalid, RULE_IDS.completionDateRequired)[0].message).toContain('last Tuesday');
    const ok = validateRequirement({
      ...goodPart11,
      status: 'completed',
      implementation: { testFile: 'a.test.ts', completedAt: '2024-05-01T10:00:00.000Z' },
    });
    expect(ok.issues).toEqual([]);
  });

  it('reports an unsupported framework instead of throwing', () => {
    const result = validateRequirement({ ...goodPart11, framework: 'hipaa' as never });
    expect(issuesFor(result, RULE_IDS.frameworkSupported)).toEqual([expect.objectContaining({ severity: 'error', field: 'framework' })]);
    expect(result.complianceMapping).toEqual({ hipaa: [] });
  });
});

describe('isTestableCriterion', () => {
  it.each([
    'Given a locked account, when the user logs in, then access is denied',
    'Response time is under 200 ms for 95% of requests',
    'The system rejects passwords shorter than twelve characters',
    'When an export completes then a notification is sent',
  ])('accepts %p', (criterion) => expect(isTestableCriterion(criterion)).toBe(true));

  it.each(['Works', 'It is secure', 'Good user experience for everyone', '', '   '])('rejects %p', (criterion) =>
    expect(isTestableCriterion(criterion)).toBe(false),
  );
});

describe('framework-specific rules', () => {
  it('Part 11: records without an audit trail get 11.10(e) explained', () => {
    const result = validateRequirement({
      title: 'Edit batch record values',
      description: 'Operators can correct values in electronic records of batch production.',
      framework: 'fda21cfr11',
      acceptanceCriteria: ['Operators can update a value and the new value is displayed after saving'],
      implementation: { testFile: 'batch.test.ts' },
    });
    const [issue] = issuesFor(result, RULE_IDS.part11AuditTrail);
    expect(issue).toMatchObject({ severity: 'warning', field: 'acceptanceCriteria' });
    expect(issue.message).toContain('11.10(e)');
    expect(issue.message).toContain('"electronic record"');
  });

  it('Part 11: signatures must address manifestation, linking and unique ids', () => {
    const bare = validateRequirement({
      title: 'Approve batch release electronically',
      description: 'QA approves the batch record with an electronic signature.',
      framework: 'fda21cfr11',
      acceptanceCriteria: ['QA can approve the record from the release screen and its status changes to Released'],
      implementation: { testFile: 'release.test.ts' },
    });
    expect(ruleIds(bare)).toEqual(
      expect.arrayContaining([RULE_IDS.part11SignatureManifestation, RULE_IDS.part11SignatureLinking, RULE_IDS.part11UniqueSigner]),
    );
    expect(issuesFor(bare, RULE_IDS.part11SignatureManifestation)[0].message).toContain(
      "the signer's printed name, the date and time of signing or the meaning of the signature",
    );
    expect(bare.complianceMapping.fda21cfr11).toEqual(expect.arrayContaining(['11.50', '11.70', '11.100']));

    const complete = validateRequirement({
      title: 'Approve batch release electronically',
      description:
        'QA approves the batch record with an electronic signature that is unique to one individual and linked to the record so it cannot be copied.',
      framework: 'fda21cfr11',
      acceptanceCriteria: [
        "The signed record displays the signer's printed name, the date and time of signing and the meaning (approval)",
        'Every signature and record change is written to the time-stamped audit trail',
      ],
      implementation: { testFile: 'release.test.ts' },
    });
    expect(complete.issues).toEqual([]);
  });

  it('GDPR: personal data processing must state a lawful basis (Art. 6)', () => {
    const missing = validateRequirement({
      title: 'Collect customer email addresses at signup',
      description: 'The signup form stores the email address of each new customer.',
      framework: 'gdpr',
      acceptanceCriteria: ['The email address is stored encrypted and returned by the profile API'],
      implementation: { testFile: 'signup.test.ts' },
    });
    const [lawful] = issuesFor(missing, RULE_IDS.gdprLawfulBasis);
    expect(lawful).toMatchObject({ severity: 'warning' });
    expect(lawful.message).toContain('Art. 6');
    expect(lawful.message).toContain('"email address"');
    expect(ruleIds(missing)).toEqual(expect.arrayContaining([RULE_IDS.gdprDataSubjectRights, RULE_IDS.gdprRetention]));

    const stated = validateRequirement({
      title: 'Collect customer email addresses at signup',
      description: 'The signup form stores the email address of each new customer on the lawful basis of contract performance.',
      framework: 'gdpr',
      acceptanceCriteria: [
        'The email address is stored encrypted and returned by the profile API',
        'An erasure request deletes the email address within 30 days',
        'Email addresses of closed accounts are purged after a retention period of 24 months',
      ],
      implementation: { testFile: 'signup.test.ts' },
    });
    expect(stated.issues).toEqual([]);
    expect(stated.complianceMapping.gdpr).toEqual(['Art. 5', 'Art. 6', 'Art. 17', 'Art. 32']);
  });

  it('GDPR: requirements that do not touch personal data are not asked for a lawful basis', () => {
    const result = validateRequirement({
      title: 'Rotate TLS certificates automatically',
      description: 'Certificates on public endpoints are renewed before expiry.',
      framework: 'gdpr',
      acceptanceCriteria: ['Certificates are renewed at least 14 days before expiry'],
      implementation: { testFile: 'tls.test.ts' },
    });
    expect(result.issues).toEqual([]);
  });

  it('ISO 13485: design requirements need verification/validation and traceability', () => {
    const result = validateRequirement({
      title: 'Infusion rate display design',
      description: 'The pump display shows the configured infusion rate.',
      framework: 'iso13485',
      category: 'Design and development',
      acceptanceCriteria: ['The display shows the infusion rate in mL/h with one decimal place'],
      implementation: { testFile: 'display.spec.ts' },
    });
    expect(issuesFor(result, RULE_IDS.isoDesignVerificationValidation)[0].message).toContain('7.3.6/7.3.7');
    expect(issuesFor(result, RULE_IDS.isoDesignTraceability)).toHaveLength(1);
    expect(result.complianceMapping.iso13485).toContain('7.3');

    const fixed = validateRequirement({
      title: 'Infusion rate display design',
      description: 'The pump display shows the configured infusion rate. Traces to user need UN-12.',
      framework: 'iso13485',
      category: 'Design and development',
      acceptanceCriteria: [
        'The display shows the infusion rate in mL/h with one decimal place',
        'Design verification test protocol TP-7 passes on three production-equivalent units',
      ],
      implementation: { testFile: 'display.spec.ts' },
    });
    expect(fixed.issues).toEqual([]);
    expect(fixed.complianceMapping.iso13485).toEqual(expect.arrayContaining(['7.3', '7.3.3', '7.3.6']));
  });

  it('SOC 2: access requirements need least privilege; change requirements need approval and testing', () => {
    const access = validateRequirement({
      title: 'Admin console access',
      description: 'Support engineers get access to the admin console.',
      framework: 'soc2',
      acceptanceCriteria: ['Engineers log in to the admin console with SSO and MFA'],
      implementation: { testFile: 'admin.test.ts' },
    });
    expect(ruleIds(access)).toEqual(expect.arrayContaining([RULE_IDS.soc2LeastPrivilege, RULE_IDS.soc2AccessReview]));
    expect(access.complianceMapping.soc2).toContain('CC6.1');

    const change = validateRequirement({
      title: 'Production deployment pipeline',
      description: 'Every deployment to production goes through the pipeline.',
      framework: 'soc2',
      acceptanceCriteria: ['A deployment is blocked unless the pull request has one approval from a reviewer other than the author'],
      implementation: { testFile: 'pipeline.test.ts' },
    });
    const [issue] = issuesFor(change, RULE_IDS.soc2ChangeApprovalTesting);
    expect(issue.message).toContain('does not address testing');
    expect(issue.message).not.toContain('approval or');
    expect(change.complianceMapping.soc2).toContain('CC8.1');
  });
});

describe('scoring and mapping', () => {
  it('subtracts per-severity penalties, floors at 0 and needs the threshold to be valid', () => {
    const awful = validateRequirement({
      title: 'TBD',
      framework: 'gdpr',
      acceptanceCriteria: ['fast', 'robust', 'easy', 'appropriate'],
      status: 'completed',
    });
    expect(awful.score).toBe(0);
    expect(awful.valid).toBe(false);

    // Four warnings and no errors: 60 < threshold, so not valid.
    const warnings = validateRequirement({
      ...goodPart11,
      description: undefined,
      implementation: undefined,
      title: 'Robust audit trail for batch record edits',
      acceptanceCriteria: [...goodPart11.acceptanceCriteria!, 'Works fine'],
    });
    expect(warnings.issues.every((issue) => issue.severity !== 'error')).toBe(true);
    const expected = 100 - warnings.issues.reduce((sum, issue) => sum + SEVERITY_PENALTY[issue.severity], 0);
    expect(warnings.score).toBe(expected);
    expect(warnings.valid).toBe(warnings.score >= VALIDITY_THRESHOLD);
    expect(Number.isInteger(warnings.score)).toBe(true);
  });

  it('deduplicates suggestions', () => {
    const result = validateRequirement({
      ...goodPart11,
      title: 'Fast audit trail viewer',
      description: 'Results should appear fast.',
      acceptanceCriteria: ['Search is fast', 'Filtering is fast'],
    });
    const replaceFast = result.suggestions.filter((suggestion) => suggestion.includes('"fast"'));
    expect(replaceFast).toHaveLength(1);
    expect(new Set(result.suggestions).size).toBe(result.suggestions.length);
    expect(issuesFor(result, RULE_IDS.ambiguousLanguage).length).toBe(4);
  });

  it('matches keywords case-insensitively on word boundaries and keeps catalogue order', () => {
    expect(mapToClauses('fda21cfr11', ['Secure AUDIT-TRAIL with Time Stamped entries', 'Password lockout after 5 attempts'])).toEqual(['11.10(e)', '11.300']);
    expect(mapToClauses('soc2', ['Quarterly ACCESS REVIEW', 'change management'])).toEqual(['CC6.3', 'CC8.1']);
    // "encryptionist" is not "encryption"; phrases do not span separate fields.
    expect(mapToClauses('gdpr', ['encryptionist', 'data', 'breach'])).toEqual([]);
    expect(mapToClauses('gdpr', ['Right to be forgotten', 'DPIA before launch'])).toEqual(['Art. 17', 'Art. 35']);
  });

  it('always includes the requirement framework in the mapping', () => {
    for (const framework of listFrameworks()) {
      const result = validateRequirement({ title: 'Nothing relevant here at all', framework: framework.id });
      expect(Object.keys(result.complianceMapping)).toEqual([framework.id]);
      expect(Array.isArray(result.complianceMapping[framework.id])).toBe(true);
    }
  });

  it('only emits rule ids that the catalogue lists for the framework', () => {
    const samples: RequirementForValidation[] = [
      { title: 'x', framework: 'fda21cfr11', description: 'approve signed records, data etc', status: 'completed' },
      { title: 'x', framework: 'gdpr', description: 'personal data should be robust' },
      { title: 'x', framework: 'iso13485', description: 'design spec' },
      { title: 'x', framework: 'soc2', description: 'access and change deploy' },
    ];
    for (const sample of samples) {
      const listed = listFrameworks()
        .find((framework) => framework.id === sample.framework)!
        .validationRules.map((rule) => rule.id);
      for (const id of ruleIds(validateRequirement(sample))) expect(listed).toContain(id);
    }
  });
});

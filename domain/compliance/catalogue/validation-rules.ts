import type { FrameworkId, ValidationRuleInfo } from './types';

/**
 * Rule ids are part of the public contract (stored with validation results and
 * shown in the UI), so they must never be renamed. The catalogue owns them so
 * that the engine depends on the catalogue and not the other way round.
 */
export const RULE_IDS = {
  frameworkSupported: 'framework-supported',
  titleRequired: 'title-required',
  titleSpecific: 'title-specific',
  descriptionRequired: 'description-required',
  acceptanceCriteriaRequired: 'acceptance-criteria-required',
  acceptanceCriteriaTestable: 'acceptance-criteria-testable',
  ambiguousLanguage: 'ambiguous-language',
  modalShould: 'modal-should',
  testLinkRequired: 'test-link-required',
  completionDateRequired: 'completion-date-required',
  part11AuditTrail: 'part11-audit-trail',
  part11SignatureManifestation: 'part11-signature-manifestation',
  part11SignatureLinking: 'part11-signature-linking',
  part11UniqueSigner: 'part11-unique-signer',
  gdprLawfulBasis: 'gdpr-lawful-basis',
  gdprDataSubjectRights: 'gdpr-data-subject-rights',
  gdprRetention: 'gdpr-retention',
  isoDesignVerificationValidation: 'iso13485-design-verification-validation',
  isoDesignTraceability: 'iso13485-design-traceability',
  soc2LeastPrivilege: 'soc2-least-privilege',
  soc2AccessReview: 'soc2-access-review',
  soc2ChangeApprovalTesting: 'soc2-change-approval-testing',
} as const;

export type RuleId = (typeof RULE_IDS)[keyof typeof RULE_IDS];

/** Rules applied to every requirement regardless of framework. */
export const COMMON_VALIDATION_RULES: readonly ValidationRuleInfo[] = Object.freeze([
  {
    id: RULE_IDS.frameworkSupported,
    name: 'Framework is supported',
    description: 'The requirement must target a framework that exists in the catalogue; one not yet assigned to a framework gets a warning.',
  },
  {
    id: RULE_IDS.titleRequired,
    name: 'Title present',
    description: 'Every requirement needs a non-blank title so it can be referenced in reviews and audits.',
  },
  {
    id: RULE_IDS.titleSpecific,
    name: 'Title is specific',
    description: 'Titles shorter than 10 characters or a single word rarely identify one requirement; very long titles usually hide a description.',
  },
  {
    id: RULE_IDS.descriptionRequired,
    name: 'Description present',
    description: 'A description gives reviewers the intent and context behind the requirement.',
  },
  {
    id: RULE_IDS.acceptanceCriteriaRequired,
    name: 'Acceptance criteria present',
    description: 'Without acceptance criteria nobody can demonstrate that the requirement has been met.',
  },
  {
    id: RULE_IDS.acceptanceCriteriaTestable,
    name: 'Acceptance criteria are testable',
    description: 'Each criterion should describe an observable outcome (an action verb plus result), a number or threshold, or follow Given/When/Then.',
  },
  {
    id: RULE_IDS.ambiguousLanguage,
    name: 'No ambiguous language',
    description: 'Words such as "appropriate", "fast", "robust", "etc." or "TBD" cannot be verified; each occurrence is reported with the word named.',
  },
  {
    id: RULE_IDS.modalShould,
    name: 'Binding wording',
    description: '"Should" reads as optional; regulated specifications conventionally use "shall" for mandatory behaviour.',
  },
  {
    id: RULE_IDS.testLinkRequired,
    name: 'Linked test',
    description: 'A requirement should point at the test that verifies it. Missing is a warning while work is open and an error once completed.',
  },
  {
    id: RULE_IDS.completionDateRequired,
    name: 'Completion date recorded',
    description: 'A completed requirement must carry a valid ISO 8601 completion timestamp for the audit record.',
  },
]);

/** Rules that only make sense for one framework. */
export const FRAMEWORK_VALIDATION_RULES: Readonly<Record<FrameworkId, readonly ValidationRuleInfo[]>> = Object.freeze({
  fda21cfr11: [
    {
      id: RULE_IDS.part11AuditTrail,
      name: 'Audit trail for electronic records (11.10(e))',
      description: 'Requirements that create or change electronic records should state that changes are captured in a secure, time-stamped audit trail.',
    },
    {
      id: RULE_IDS.part11SignatureManifestation,
      name: 'Signature manifestation (11.50)',
      description: 'Requirements involving signatures or approvals should show the signer name, the date and time, and the meaning of the signature.',
    },
    {
      id: RULE_IDS.part11SignatureLinking,
      name: 'Signature-to-record linking (11.70)',
      description: 'Requirements involving signatures should ensure the signature is bound to its record so it cannot be removed, copied or reused.',
    },
    {
      id: RULE_IDS.part11UniqueSigner,
      name: 'Unique signer identity (11.100)',
      description: 'Requirements involving signatures should state that each signature belongs to exactly one individual and is never reassigned.',
    },
  ],
  gdpr: [
    {
      id: RULE_IDS.gdprLawfulBasis,
      name: 'Lawful basis stated (Art. 6)',
      description: 'Requirements that process personal data should name the lawful basis for the processing.',
    },
    {
      id: RULE_IDS.gdprDataSubjectRights,
      name: 'Data-subject rights handled (Art. 15-22)',
      description: 'Requirements that process personal data should say how access, rectification, erasure, portability or objection requests are honoured.',
    },
    {
      id: RULE_IDS.gdprRetention,
      name: 'Retention defined (Art. 5(1)(e))',
      description: 'Requirements that store personal data should define how long it is kept and how it is removed.',
    },
  ],
  iso13485: [
    {
      id: RULE_IDS.isoDesignVerificationValidation,
      name: 'Design verification and validation (7.3.6, 7.3.7)',
      description: 'Design requirements should say how the output will be verified and the device validated.',
    },
    {
      id: RULE_IDS.isoDesignTraceability,
      name: 'Design traceability',
      description: 'Design requirements should trace back to a user need, design input or risk control.',
    },
  ],
  soc2: [
    {
      id: RULE_IDS.soc2LeastPrivilege,
      name: 'Least privilege (CC6.3)',
      description: 'Access requirements should grant only the permissions a role needs.',
    },
    {
      id: RULE_IDS.soc2AccessReview,
      name: 'Access review and removal (CC6.2, CC6.3)',
      description: 'Access requirements should describe periodic review and timely revocation of access.',
    },
    {
      id: RULE_IDS.soc2ChangeApprovalTesting,
      name: 'Change approval and testing (CC8.1)',
      description: 'Change requirements should state that changes are tested and approved before release.',
    },
  ],
});

/** Everything that can fire for a requirement of the given framework, common rules first. */
export function validationRulesFor(framework: FrameworkId): ValidationRuleInfo[] {
  return [...COMMON_VALIDATION_RULES, ...FRAMEWORK_VALIDATION_RULES[framework]].map((rule) => ({ ...rule }));
}

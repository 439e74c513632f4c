import type { FrameworkId } from '../catalogue/types';
import { RULE_IDS, type RuleId } from '../catalogue/validation-rules';
import type { ValidationSeverity } from './types';

/**
 * A framework-specific expectation: when a requirement mentions a trigger
 * phrase, every component must be addressed by at least one of its keywords.
 * Keyword based on purpose - every finding can name the phrase that triggered it.
 */
export interface FrameworkExpectation {
  ruleId: RuleId;
  severity: ValidationSeverity;
  /** What the trigger phrases indicate, e.g. "electronic records". */
  topic: string;
  triggers: readonly string[];
  components: readonly { label: string; keywords: readonly string[] }[];
  /** Clause citation plus what it expects, completing "...; <reference> <expectation>." */
  reference: string;
  expectation: string;
  suggestion: string;
}

const SIGNATURE_TRIGGERS = [
  'electronic signature',
  'e-signature',
  'signature',
  'sign',
  'signed',
  'signing',
  'sign-off',
  'approval',
  'approve',
  'approved',
  'approver',
];

const PERSONAL_DATA_TRIGGERS = [
  'personal data',
  'personal information',
  'pii',
  'data subject',
  'email address',
  'phone number',
  'date of birth',
  'home address',
  'health data',
  'patient data',
  'customer data',
  'user data',
  'ip address',
  'special category',
  'profiling',
];

const DESIGN_TRIGGERS = ['design', 'design input', 'design output', 'specification', 'user need', 'software requirement'];

const ACCESS_TRIGGERS = [
  'access',
  'permission',
  'role',
  'login',
  'log in',
  'sign in',
  'authentication',
  'authorization',
  'authorisation',
  'user account',
  'privileged',
  'administrator',
  'admin',
  'credential',
];

const CHANGE_TRIGGERS = ['change', 'deployment', 'deploy', 'release', 'migration', 'pull request', 'merge', 'rollout', 'hotfix', 'patch'];

export const FRAMEWORK_EXPECTATIONS: Readonly<Record<FrameworkId, readonly FrameworkExpectation[]>> = {
  fda21cfr11: [
    {
      ruleId: RULE_IDS.part11AuditTrail,
      severity: 'warning',
      topic: 'electronic records',
      triggers: ['electronic record', 'record', 'data', 'document', 'entry', 'entries'],
      components: [
        {
          label: 'an audit trail',
          keywords: ['audit trail', 'audit log', 'audit history', 'time-stamped', 'timestamped', 'timestamp', 'record changes', 'change history'],
        },
      ],
      reference: '21 CFR 11.10(e)',
      expectation: 'expects a secure, computer-generated, time-stamped audit trail of record creation, change and deletion',
      suggestion:
        'Add a criterion stating that every create, update and delete is written to a secure, time-stamped audit trail with user, time and old/new values (21 CFR 11.10(e)).',
    },
    {
      ruleId: RULE_IDS.part11SignatureManifestation,
      severity: 'warning',
      topic: 'electronic signatures',
      triggers: SIGNATURE_TRIGGERS,
      components: [
        { label: "the signer's printed name", keywords: ['printed name', 'full name', 'signer name', 'name of the signer', "signer's name"] },
        { label: 'the date and time of signing', keywords: ['date and time', 'timestamp', 'time-stamped', 'timestamped', 'signing time'] },
        // Only explicit wording counts: "approval" would otherwise satisfy its own trigger.
        { label: 'the meaning of the signature', keywords: ['meaning', 'signature meaning', 'reason for signing', 'signing reason'] },
      ],
      reference: '21 CFR 11.50',
      expectation: 'expects signed records to show name, date/time and meaning of each signature',
      suggestion: "State that signed records display the signer's printed name, the date and time of signing and the meaning of the signature (21 CFR 11.50).",
    },
    {
      ruleId: RULE_IDS.part11SignatureLinking,
      severity: 'warning',
      topic: 'electronic signatures',
      triggers: SIGNATURE_TRIGGERS,
      components: [
        {
          label: 'linking the signature to its record',
          keywords: ['linked', 'link', 'linking', 'bound', 'binding', 'cannot be removed', 'cannot be copied', 'cannot be excised', 'tamper'],
        },
      ],
      reference: '21 CFR 11.70',
      expectation: 'expects signatures to be bound to their records so they cannot be removed, copied or transferred',
      suggestion:
        'State that each signature is cryptographically or logically linked to its record so it cannot be copied, removed or transferred (21 CFR 11.70).',
    },
    {
      ruleId: RULE_IDS.part11UniqueSigner,
      severity: 'warning',
      topic: 'electronic signatures',
      triggers: SIGNATURE_TRIGGERS,
      components: [
        {
          label: 'a unique signer identity',
          keywords: ['unique', 'uniquely', 'one individual', 'not reused', 'not reassigned', 'identity verification', 'verified identity', 'verify identity'],
        },
      ],
      reference: '21 CFR 11.100',
      expectation: 'expects every electronic signature to be unique to one individual and never reused or reassigned',
      suggestion: 'State that each electronic signature is unique to one verified individual and is never reused or reassigned (21 CFR 11.100).',
    },
  ],
  gdpr: [
    {
      ruleId: RULE_IDS.gdprLawfulBasis,
      severity: 'warning',
      topic: 'personal data',
      triggers: PERSONAL_DATA_TRIGGERS,
      components: [
        {
          label: 'a lawful basis',
          keywords: ['lawful basis', 'legal basis', 'consent', 'legitimate interest', 'contract', 'legal obligation', 'vital interest', 'public task'],
        },
      ],
      reference: 'GDPR Art. 6',
      expectation: 'requires one lawful basis for every processing activity',
      suggestion:
        'Name the lawful basis for the processing (consent, contract, legal obligation, vital interests, public task or legitimate interests) (GDPR Art. 6).',
    },
    {
      ruleId: RULE_IDS.gdprDataSubjectRights,
      severity: 'info',
      topic: 'personal data',
      triggers: PERSONAL_DATA_TRIGGERS,
      components: [
        {
          label: 'data-subject rights',
          keywords: [
            'access request',
            'subject access',
            'dsar',
            'right of access',
            'rectification',
            'erasure',
            'right to be forgotten',
            'portability',
            'restriction',
            'right to object',
            'objection',
            'data subject rights',
            'data subject request',
          ],
        },
      ],
      reference: 'GDPR Art. 15-22',
      expectation: 'give individuals rights of access, rectification, erasure, restriction, portability and objection',
      suggestion: 'Describe how access, rectification, erasure, portability and objection requests are fulfilled for this data (GDPR Art. 15-22).',
    },
    {
      ruleId: RULE_IDS.gdprRetention,
      severity: 'info',
      topic: 'personal data',
      triggers: PERSONAL_DATA_TRIGGERS,
      components: [
        {
          label: 'a retention period',
          keywords: [
            'retention',
            'retain',
            'retained',
            'storage limitation',
            'purge',
            'purged',
            'deleted after',
            'kept for',
            'anonymised after',
            'anonymized after',
          ],
        },
      ],
      reference: 'GDPR Art. 5(1)(e)',
      expectation: 'limits storage of personal data to what the purpose needs',
      suggestion: 'Define how long the personal data is retained and how it is deleted or anonymised afterwards (GDPR Art. 5(1)(e)).',
    },
  ],
  iso13485: [
    {
      ruleId: RULE_IDS.isoDesignVerificationValidation,
      severity: 'warning',
      topic: 'design and development',
      triggers: DESIGN_TRIGGERS,
      components: [
        {
          label: 'verification or validation',
          keywords: [
            'verification',
            'verify',
            'verified',
            'validation',
            'validate',
            'validated',
            'test',
            'tested',
            'testing',
            'test protocol',
            'clinical evaluation',
            'usability study',
          ],
        },
      ],
      reference: 'ISO 13485 7.3.6/7.3.7',
      expectation: 'requires design outputs to be verified against inputs and the device validated for its intended use',
      suggestion: 'State how the design output will be verified against its input and how the device will be validated (ISO 13485 7.3.6, 7.3.7).',
    },
    {
      ruleId: RULE_IDS.isoDesignTraceability,
      severity: 'info',
      topic: 'design and development',
      triggers: DESIGN_TRIGGERS,
      components: [
        {
          label: 'traceability',
          keywords: ['trace', 'traced', 'traceability', 'traceable', 'trace matrix', 'user need', 'design input', 'risk control', 'hazard'],
        },
      ],
      reference: 'ISO 13485 7.3.2/7.3.10',
      expectation: 'expects design records to trace inputs, outputs, verification and risk controls',
      suggestion: 'Reference the user need, design input or risk control this requirement traces to (ISO 13485 7.3).',
    },
  ],
  soc2: [
    {
      ruleId: RULE_IDS.soc2LeastPrivilege,
      severity: 'warning',
      topic: 'access',
      triggers: ACCESS_TRIGGERS,
      components: [
        {
          label: 'least privilege',
          keywords: [
            'least privilege',
            'minimum necessary',
            'need to know',
            'role-based',
            'rbac',
            'segregation of duties',
            'separation of duties',
            'only authorized',
            'only authorised',
            'restricted to',
            'scoped to',
          ],
        },
      ],
      reference: 'SOC 2 CC6.3',
      expectation: 'expects access to be granted by role on a least-privilege basis',
      suggestion: 'State that access is granted by role and limited to the minimum permissions needed (SOC 2 CC6.3).',
    },
    {
      ruleId: RULE_IDS.soc2AccessReview,
      severity: 'info',
      topic: 'access',
      triggers: ACCESS_TRIGGERS,
      components: [
        {
          label: 'access review or revocation',
          keywords: [
            'access review',
            'review',
            'reviewed',
            'recertification',
            'recertify',
            'periodic',
            'quarterly',
            'revoke',
            'revoked',
            'revocation',
            'deprovision',
            'deprovisioned',
            'offboarding',
          ],
        },
      ],
      reference: 'SOC 2 CC6.2/CC6.3',
      expectation: 'expects access to be reviewed periodically and removed when no longer needed',
      suggestion: 'Describe how often access is reviewed and how quickly it is revoked when no longer needed (SOC 2 CC6.2, CC6.3).',
    },
    {
      ruleId: RULE_IDS.soc2ChangeApprovalTesting,
      severity: 'warning',
      topic: 'change management',
      triggers: CHANGE_TRIGGERS,
      components: [
        {
          label: 'approval',
          keywords: [
            'approval',
            'approve',
            'approved',
            'approver',
            'review',
            'reviewed',
            'reviewer',
            'sign-off',
            'authorized',
            'authorised',
            'code review',
            'peer review',
          ],
        },
        {
          label: 'testing',
          keywords: ['test', 'tested', 'testing', 'ci', 'continuous integration', 'staging', 'qa', 'regression', 'verification', 'verified'],
        },
      ],
      reference: 'SOC 2 CC8.1',
      expectation: 'expects changes to be tested and approved before they are implemented',
      suggestion: 'State that changes are tested and approved by someone other than the author before release (SOC 2 CC8.1).',
    },
  ],
};

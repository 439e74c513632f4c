import { defineClauses, type ClauseDefinition } from './types';

/*
 * 21 CFR Part 11 - electronic records and electronic signatures.
 * Each 11.10 paragraph is its own entry because findings and evidence are
 * usually tracked per control (an audit trail gap is 11.10(e), not "11.10").
 * Titles and descriptions are our own summaries.
 */

const CLOSED = 'Closed system controls';
const OPEN = 'Open system controls';
const SIGNATURE_RECORDS = 'Signature manifestation and linking';
const SIGNATURE_CONTROLS = 'Electronic signature controls';

export const FDA21CFR11_CATEGORIES = [CLOSED, OPEN, SIGNATURE_RECORDS, SIGNATURE_CONTROLS];

const definitions: ClauseDefinition[] = [
  {
    section: '11.10(a)',
    category: CLOSED,
    title: 'System validation',
    description: 'Systems are validated so they work accurately, reliably and as intended, and can detect records that are invalid or have been altered.',
    keywords: ['system validation', 'validated system', 'computer system validation', 'validation', 'altered record', 'invalid record'],
  },
  {
    section: '11.10(b)',
    category: CLOSED,
    title: 'Accurate and complete copies',
    description: 'The system can produce complete, accurate copies of records in both human-readable and electronic form for agency inspection.',
    keywords: ['copy', 'copies', 'human-readable', 'export', 'inspection copy', 'printout'],
  },
  {
    section: '11.10(c)',
    category: CLOSED,
    title: 'Record protection and retrieval',
    description: 'Records are protected so they can be retrieved accurately and promptly for as long as they must be retained.',
    keywords: ['retention', 'retention period', 'retain', 'retained', 'archive', 'archiving', 'backup', 'record protection', 'retrieval', 'retrievable'],
  },
  {
    section: '11.10(d)',
    category: CLOSED,
    title: 'Limited system access',
    description: 'Only authorised individuals can get into the system.',
    keywords: ['access control', 'system access', 'authorized individual', 'authorised individual', 'restrict access', 'login', 'authentication'],
  },
  {
    section: '11.10(e)',
    category: CLOSED,
    title: 'Audit trail',
    description:
      'A secure, computer-generated, time-stamped audit trail records who created, changed or deleted a record and when; changes never hide earlier values and the trail is kept as long as the record.',
    keywords: ['audit trail', 'audit log', 'time-stamped', 'timestamped', 'record changes', 'change history', 'previous value'],
  },
  {
    section: '11.10(f)',
    category: CLOSED,
    title: 'Operational system checks',
    description: 'Where the order of steps or events matters, the system enforces the permitted sequence.',
    keywords: ['operational check', 'sequencing', 'permitted sequence', 'step order', 'workflow step', 'state machine'],
  },
  {
    section: '11.10(g)',
    category: CLOSED,
    title: 'Authority checks',
    description: 'The system checks that a person is authorised before letting them sign, alter records, use inputs/outputs or perform the operation.',
    keywords: ['authority check', 'authorization', 'authorisation', 'permission', 'role', 'privilege'],
  },
  {
    section: '11.10(h)',
    category: CLOSED,
    title: 'Device checks',
    description: 'Where appropriate to the process, the system checks that data or commands come from a valid source terminal or device.',
    keywords: ['device check', 'terminal check', 'source of data', 'data source', 'input source'],
  },
  {
    section: '11.10(i)',
    category: CLOSED,
    title: 'Personnel qualification',
    description: 'People who build, maintain or use the system have the education, training and experience their tasks require.',
    keywords: ['training', 'education', 'experience', 'qualified personnel', 'competence'],
  },
  {
    section: '11.10(j)',
    category: CLOSED,
    title: 'Signature accountability policy',
    description: 'Written policies hold people accountable for actions taken under their electronic signatures, discouraging falsification.',
    keywords: ['accountability', 'accountable', 'signature policy', 'written policy', 'falsification'],
  },
  {
    section: '11.10(k)',
    category: CLOSED,
    title: 'System documentation controls',
    description:
      'Distribution of, access to and use of operating and maintenance documentation is controlled, and changes to it follow revision and change control with an audit trail.',
    keywords: ['system documentation', 'documentation control', 'operating manual', 'revision control', 'change control'],
  },
  {
    section: '11.30',
    category: OPEN,
    title: 'Controls for open systems',
    description:
      'Open systems add measures such as encryption and digital signature standards so records stay authentic, intact and, where needed, confidential from creation to receipt.',
    keywords: ['open system', 'encryption', 'encrypted', 'digital signature', 'public network', 'transmission'],
  },
  {
    section: '11.50',
    category: SIGNATURE_RECORDS,
    title: 'Signature manifestations',
    description:
      "Signed records show the signer's printed name, the date and time of signing and what the signature means (review, approval, responsibility, authorship), including on displays and printouts.",
    keywords: [
      'electronic signature',
      'e-signature',
      'signature',
      'sign-off',
      'signature manifestation',
      'printed name',
      'signature meaning',
      'meaning of the signature',
      'signed record',
    ],
  },
  {
    section: '11.70',
    category: SIGNATURE_RECORDS,
    title: 'Signature/record linking',
    description: 'Signatures are bound to their records so they cannot be removed, copied or moved to falsify another record.',
    keywords: ['electronic signature', 'e-signature', 'signature', 'signature linking', 'linked to the record', 'handwritten signature', 'tamper'],
  },
  {
    section: '11.100',
    category: SIGNATURE_CONTROLS,
    title: 'Electronic signature general requirements',
    description:
      'Each electronic signature belongs to one person and is never reused or reassigned; identity is verified before a signature is issued and the organisation certifies its use to FDA.',
    keywords: ['electronic signature', 'e-signature', 'signature', 'unique signature', 'unique to one individual', 'identity verification', 'not reassigned'],
  },
  {
    section: '11.200',
    category: SIGNATURE_CONTROLS,
    title: 'Signature components and controls',
    description:
      'Non-biometric signatures use at least two distinct components such as an ID and password; biometric signatures are designed so only the owner can use them.',
    keywords: ['electronic signature', 'e-signature', 'two-factor', 'multi-factor', 'mfa', '2fa', 'biometric', 'signing session'],
  },
  {
    section: '11.300',
    category: SIGNATURE_CONTROLS,
    title: 'Identification codes and passwords',
    description:
      'ID/password combinations stay unique, are checked and revised periodically, lost tokens are deauthorised, misuse attempts are detected and reported, and tokens are tested.',
    keywords: ['password', 'identification code', 'password policy', 'password expiry', 'lost token', 'credential', 'lockout'],
  },
];

export const FDA21CFR11_CLAUSES = defineClauses('fda21cfr11', definitions);

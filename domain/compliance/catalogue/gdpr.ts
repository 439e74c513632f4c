import { defineClauses, type ClauseDefinition } from './types';

/*
 * Regulation (EU) 2016/679 (GDPR). Sections use the "Art. N" form used in
 * privacy notices and DPIAs. Descriptions are our own plain-language summaries.
 */

const PRINCIPLES = 'Principles and lawful processing';
const TRANSPARENCY = 'Transparency';
const RIGHTS = 'Data subject rights';
const ACCOUNTABILITY = 'Controller and processor obligations';
const SECURITY = 'Security and breach notification';
const TRANSFERS = 'International transfers';

export const GDPR_CATEGORIES = [PRINCIPLES, TRANSPARENCY, RIGHTS, ACCOUNTABILITY, SECURITY, TRANSFERS];

const definitions: ClauseDefinition[] = [
  {
    section: 'Art. 5',
    category: PRINCIPLES,
    title: 'Processing principles',
    description:
      'Personal data is processed lawfully and transparently, for specific purposes, limited to what is needed, kept accurate, stored no longer than necessary and secured, and the controller can prove all of this.',
    keywords: ['data minimisation', 'data minimization', 'purpose limitation', 'storage limitation', 'retention', 'retention period', 'accuracy'],
  },
  {
    section: 'Art. 6',
    category: PRINCIPLES,
    title: 'Lawfulness of processing',
    description: 'Every processing activity needs one lawful basis: consent, contract, legal obligation, vital interests, public task or legitimate interests.',
    keywords: ['lawful basis', 'legal basis', 'consent', 'legitimate interest', 'contract', 'legal obligation', 'vital interest', 'public task'],
  },
  {
    section: 'Art. 7',
    category: PRINCIPLES,
    title: 'Conditions for consent',
    description: 'Consent must be provable, clearly separated from other matters, freely given and as easy to withdraw as to give.',
    keywords: ['consent', 'withdraw consent', 'consent withdrawal', 'opt-in', 'proof of consent', 'consent record'],
  },
  {
    section: 'Art. 9',
    category: PRINCIPLES,
    title: 'Special categories of data',
    description:
      'Health, genetic, biometric and other sensitive data may only be processed under one of a short list of specific exceptions such as explicit consent.',
    keywords: [
      'special category',
      'health data',
      'biometric',
      'genetic',
      'ethnic origin',
      'religious belief',
      'sexual orientation',
      'trade union',
      'political opinion',
    ],
  },
  {
    section: 'Art. 12',
    category: TRANSPARENCY,
    title: 'Transparent communication and request handling',
    description: 'Information for individuals is concise and in plain language, and requests are answered free of charge, normally within one month.',
    keywords: ['plain language', 'one month', 'data subject request', 'transparency'],
  },
  {
    section: 'Art. 13',
    category: TRANSPARENCY,
    title: 'Information when data is collected from the individual',
    description: 'At collection, tell people who is processing their data, why, on what basis, for how long and what rights they have.',
    keywords: ['privacy notice', 'privacy policy', 'notice at collection'],
  },
  {
    section: 'Art. 14',
    category: TRANSPARENCY,
    title: 'Information when data comes from elsewhere',
    description: 'When data is obtained from a third party, give the individual the same information plus its source within a reasonable period.',
    keywords: ['third-party source', 'indirect collection', 'obtained from a third party', 'data source disclosure'],
  },
  {
    section: 'Art. 15',
    category: RIGHTS,
    title: 'Right of access',
    description: 'Individuals can confirm whether their data is processed and obtain a copy along with details of the processing.',
    keywords: ['access request', 'subject access', 'dsar', 'right of access', 'copy of their data'],
  },
  {
    section: 'Art. 16',
    category: RIGHTS,
    title: 'Right to rectification',
    description: 'Inaccurate data is corrected and incomplete data completed without undue delay.',
    keywords: ['rectification', 'rectify', 'correct personal data', 'inaccurate data'],
  },
  {
    section: 'Art. 17',
    category: RIGHTS,
    title: 'Right to erasure',
    description: 'Data is deleted on request when there is no longer a valid reason to keep it, subject to listed exceptions.',
    keywords: ['erasure', 'erase', 'right to be forgotten', 'deletion request', 'delete personal data'],
  },
  {
    section: 'Art. 18',
    category: RIGHTS,
    title: 'Right to restriction of processing',
    description: 'In defined situations (e.g. disputed accuracy) data is kept but its use is frozen.',
    keywords: ['restriction of processing', 'restrict processing', 'restriction'],
  },
  {
    section: 'Art. 19',
    category: RIGHTS,
    title: 'Notifying recipients of changes',
    description: 'Rectifications, erasures and restrictions are passed on to every recipient the data was disclosed to, unless impossible.',
    keywords: ['notify recipients', 'recipient notification', 'downstream deletion'],
  },
  {
    section: 'Art. 20',
    category: RIGHTS,
    title: 'Right to data portability',
    description: 'Data supplied by the individual is provided in a structured, machine-readable format and can be sent to another controller.',
    keywords: ['portability', 'data portability', 'machine-readable', 'structured format', 'export personal data'],
  },
  {
    section: 'Art. 21',
    category: RIGHTS,
    title: 'Right to object',
    description: 'Individuals can object to processing based on legitimate or public interests, and always to direct marketing.',
    // "object" alone would match technical text ("data object"), so use phrases.
    keywords: ['right to object', 'objection', 'object to processing', 'opt-out', 'direct marketing'],
  },
  {
    section: 'Art. 22',
    category: RIGHTS,
    title: 'Automated decisions and profiling',
    description: 'People are protected from significant decisions made solely by automated means, with a right to human intervention.',
    keywords: ['automated decision', 'profiling', 'human review', 'human intervention', 'solely automated'],
  },
  {
    section: 'Art. 24',
    category: ACCOUNTABILITY,
    title: 'Controller responsibility',
    description: 'The controller puts proportionate measures and policies in place and can demonstrate that processing complies.',
    keywords: ['controller', 'accountability', 'demonstrate compliance', 'data protection policy'],
  },
  {
    section: 'Art. 25',
    category: ACCOUNTABILITY,
    title: 'Data protection by design and by default',
    description: 'Privacy safeguards are built in from the start and default settings process only the data needed for each purpose.',
    keywords: ['privacy by design', 'data protection by design', 'privacy by default', 'by default', 'minimisation', 'minimization'],
  },
  {
    section: 'Art. 28',
    category: ACCOUNTABILITY,
    title: 'Processors',
    description: 'Processors are chosen for their guarantees, bound by a contract with mandatory terms, and only use sub-processors with authorisation.',
    keywords: ['processor', 'sub-processor', 'subprocessor', 'data processing agreement', 'dpa'],
  },
  {
    section: 'Art. 30',
    category: ACCOUNTABILITY,
    title: 'Records of processing activities',
    description:
      'Controllers and processors keep a written inventory of their processing: purposes, categories, recipients, transfers, retention and security.',
    keywords: ['records of processing', 'record of processing', 'ropa', 'processing inventory', 'data inventory', 'data map'],
  },
  {
    section: 'Art. 32',
    category: SECURITY,
    title: 'Security of processing',
    description:
      'Risk-appropriate technical and organisational measures protect data, e.g. encryption, pseudonymisation, resilient systems, timely restore and regular testing.',
    keywords: ['encryption', 'encrypt', 'encrypted', 'pseudonymisation', 'pseudonymization', 'access control', 'resilience', 'penetration test'],
  },
  {
    section: 'Art. 33',
    category: SECURITY,
    title: 'Breach notification to the authority',
    description:
      'A personal data breach is reported to the supervisory authority within 72 hours of awareness unless it is unlikely to create risk, and every breach is documented.',
    keywords: ['data breach', 'personal data breach', 'breach notification', '72 hours', 'supervisory authority'],
  },
  {
    section: 'Art. 34',
    category: SECURITY,
    title: 'Breach communication to individuals',
    description: 'When a breach is likely to pose a high risk, affected individuals are told without undue delay in clear language.',
    keywords: ['data breach', 'personal data breach', 'breach notification', 'notify affected', 'notify data subjects'],
  },
  {
    section: 'Art. 35',
    category: ACCOUNTABILITY,
    title: 'Data protection impact assessment',
    description: 'Processing likely to be high risk is assessed beforehand for necessity, risks and mitigating measures.',
    keywords: ['dpia', 'data protection impact assessment', 'impact assessment', 'high-risk processing'],
  },
  {
    section: 'Art. 37',
    category: ACCOUNTABILITY,
    title: 'Data protection officer',
    description: 'A DPO is appointed where core activities involve large-scale monitoring or sensitive data, or the controller is a public body.',
    keywords: ['dpo', 'data protection officer'],
  },
  {
    section: 'Art. 44',
    category: TRANSFERS,
    title: 'General principle for transfers',
    description: 'Data leaves the EEA only when the transfer rules (adequacy, safeguards such as standard clauses, or derogations) are satisfied.',
    keywords: ['international transfer', 'cross-border', 'third country', 'standard contractual clauses', 'adequacy decision', 'data residency'],
  },
];

export const GDPR_CLAUSES = defineClauses('gdpr', definitions);

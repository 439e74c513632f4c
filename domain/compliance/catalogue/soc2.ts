import { defineClauses, type ClauseDefinition } from './types';

/*
 * AICPA Trust Services Criteria (2017, points of focus revised 2022) used for
 * SOC 2. Common criteria CC1-CC9 apply to every report; A1, C1, PI1 and P1-P8
 * only when those categories are in scope. Summaries are our own wording.
 */

const CONTROL_ENVIRONMENT = 'Control environment';
const COMMUNICATION = 'Communication and information';
const RISK_ASSESSMENT = 'Risk assessment';
const MONITORING = 'Monitoring activities';
const CONTROL_ACTIVITIES = 'Control activities';
const ACCESS = 'Logical and physical access';
const OPERATIONS = 'System operations';
const CHANGE = 'Change management';
const RISK_MITIGATION = 'Risk mitigation';
const AVAILABILITY = 'Availability';
const CONFIDENTIALITY = 'Confidentiality';
const PROCESSING_INTEGRITY = 'Processing integrity';
const PRIVACY = 'Privacy';

export const SOC2_CATEGORIES = [
  CONTROL_ENVIRONMENT,
  COMMUNICATION,
  RISK_ASSESSMENT,
  MONITORING,
  CONTROL_ACTIVITIES,
  ACCESS,
  OPERATIONS,
  CHANGE,
  RISK_MITIGATION,
  AVAILABILITY,
  CONFIDENTIALITY,
  PROCESSING_INTEGRITY,
  PRIVACY,
];

const definitions: ClauseDefinition[] = [
  // CC1 - control environment
  {
    section: 'CC1.1',
    category: CONTROL_ENVIRONMENT,
    title: 'Integrity and ethical values',
    description: 'The organisation sets and enforces standards of conduct, e.g. a code of conduct acknowledged by staff.',
    keywords: ['code of conduct', 'ethics', 'ethical values', 'integrity'],
  },
  {
    section: 'CC1.2',
    category: CONTROL_ENVIRONMENT,
    title: 'Board oversight',
    description: 'A board independent of management oversees how internal control is designed and run.',
    keywords: ['board of directors', 'board oversight', 'audit committee'],
  },
  {
    section: 'CC1.3',
    category: CONTROL_ENVIRONMENT,
    title: 'Structures, reporting lines and authority',
    description: 'Management, overseen by the board, sets up structures, reporting lines and responsibilities to reach objectives.',
    keywords: ['reporting line', 'org chart', 'organizational structure', 'roles and responsibilities'],
  },
  {
    section: 'CC1.4',
    category: CONTROL_ENVIRONMENT,
    title: 'Competent people',
    description: 'Competent people are hired, developed and retained in line with objectives.',
    keywords: ['hiring', 'background check', 'security awareness training', 'training', 'competence'],
  },
  {
    section: 'CC1.5',
    category: CONTROL_ENVIRONMENT,
    title: 'Accountability for internal control',
    description: 'Individuals are held accountable for their internal control responsibilities, including through performance measures.',
    keywords: ['accountability', 'accountable', 'performance review', 'disciplinary'],
  },
  // CC2 - communication and information
  {
    section: 'CC2.1',
    category: COMMUNICATION,
    title: 'Quality information',
    description: 'Relevant, good-quality information is gathered or generated to support internal control.',
    keywords: ['system inventory', 'asset inventory', 'data flow diagram', 'information quality'],
  },
  {
    section: 'CC2.2',
    category: COMMUNICATION,
    title: 'Internal communication',
    description: 'Objectives and control responsibilities are communicated inside the organisation, including a way to raise concerns.',
    keywords: ['internal communication', 'security policy communication', 'whistleblower', 'policy acknowledgement'],
  },
  {
    section: 'CC2.3',
    category: COMMUNICATION,
    title: 'External communication',
    description: 'Matters affecting internal control are communicated with customers, vendors and other outside parties.',
    keywords: ['external communication', 'customer notification', 'status page', 'terms of service', 'system description'],
  },
  // CC3 - risk assessment
  {
    section: 'CC3.1',
    category: RISK_ASSESSMENT,
    title: 'Clear objectives',
    description: 'Objectives are specified clearly enough that related risks can be identified and assessed.',
    keywords: ['security objective', 'business objective', 'risk appetite'],
  },
  {
    section: 'CC3.2',
    category: RISK_ASSESSMENT,
    title: 'Risk identification and analysis',
    description: 'Risks to objectives are identified across the organisation and analysed to decide how to manage them.',
    keywords: ['risk assessment', 'risk register', 'threat model', 'threat modelling', 'risk analysis'],
  },
  {
    section: 'CC3.3',
    category: RISK_ASSESSMENT,
    title: 'Fraud risk',
    description: 'The risk assessment considers the potential for fraud.',
    keywords: ['fraud', 'fraud risk'],
  },
  {
    section: 'CC3.4',
    category: RISK_ASSESSMENT,
    title: 'Significant change assessment',
    description: 'Changes that could materially affect internal control (business, technology, vendors) are identified and assessed.',
    keywords: ['significant change', 'change in environment', 'new vendor assessment'],
  },
  // CC4 - monitoring activities
  {
    section: 'CC4.1',
    category: MONITORING,
    title: 'Control evaluations',
    description: 'Ongoing and separate evaluations confirm that controls are present and working.',
    keywords: ['control testing', 'internal audit', 'penetration test', 'vulnerability scan', 'control evaluation'],
  },
  {
    section: 'CC4.2',
    category: MONITORING,
    title: 'Deficiency communication',
    description: 'Control deficiencies are evaluated and reported promptly to those who must fix them, including senior management.',
    keywords: ['control deficiency', 'deficiencies', 'remediation tracking', 'finding'],
  },
  // CC5 - control activities
  {
    section: 'CC5.1',
    category: CONTROL_ACTIVITIES,
    title: 'Control selection',
    description: 'Control activities are chosen and developed to bring risks down to acceptable levels.',
    keywords: ['control activity', 'control design', 'risk mitigation control'],
  },
  {
    section: 'CC5.2',
    category: CONTROL_ACTIVITIES,
    title: 'Technology general controls',
    description: 'General controls over technology (infrastructure, security, acquisition and maintenance) support the objectives.',
    keywords: ['general controls', 'it general controls', 'itgc', 'technology controls'],
  },
  {
    section: 'CC5.3',
    category: CONTROL_ACTIVITIES,
    title: 'Policies and procedures',
    description: 'Controls are deployed through policies stating expectations and procedures that put them into practice.',
    keywords: ['policy', 'policies', 'procedure', 'procedures', 'sop'],
  },
  // CC6 - logical and physical access
  {
    section: 'CC6.1',
    category: ACCESS,
    title: 'Logical access security',
    description:
      'Software, infrastructure and architecture controls protect information assets: authentication, asset inventory, network segmentation and encryption keys.',
    keywords: ['logical access', 'access control', 'authentication', 'sso', 'mfa', 'multi-factor', 'encryption key', 'key management', 'network segmentation'],
  },
  {
    section: 'CC6.2',
    category: ACCESS,
    title: 'User registration and deprovisioning',
    description: 'New users are registered and authorised before credentials are issued, and credentials are removed when no longer needed.',
    keywords: ['user provisioning', 'provisioning', 'deprovisioning', 'onboarding', 'offboarding', 'access request', 'credential'],
  },
  {
    section: 'CC6.3',
    category: ACCESS,
    title: 'Role-based access and least privilege',
    description: 'Access is granted, changed and removed by role, following least privilege and segregation of duties, and reviewed periodically.',
    keywords: ['least privilege', 'role-based access', 'rbac', 'segregation of duties', 'separation of duties', 'access review', 'permission'],
  },
  {
    section: 'CC6.4',
    category: ACCESS,
    title: 'Physical access',
    description: 'Physical access to facilities, data centres and backup media is restricted to authorised people.',
    keywords: ['physical access', 'badge', 'data center', 'data centre', 'facility access'],
  },
  {
    section: 'CC6.5',
    category: ACCESS,
    title: 'Asset disposal',
    description: 'Protection is only removed from assets once the data on them can no longer be recovered.',
    keywords: ['asset disposal', 'media sanitization', 'media sanitisation', 'data destruction', 'decommission'],
  },
  {
    section: 'CC6.6',
    category: ACCESS,
    title: 'External threat protection',
    description: 'Boundary controls such as firewalls, VPN and intrusion prevention guard against threats from outside the system.',
    keywords: ['firewall', 'vpn', 'intrusion prevention', 'waf', 'boundary protection', 'ddos'],
  },
  {
    section: 'CC6.7',
    category: ACCESS,
    title: 'Data in transit and removable media',
    description: 'Transmission, movement and removal of information is limited to authorised parties and protected, e.g. with TLS.',
    keywords: ['encryption in transit', 'tls', 'https', 'data transfer', 'removable media', 'dlp'],
  },
  {
    section: 'CC6.8',
    category: ACCESS,
    title: 'Malicious software prevention',
    description: 'Unauthorised or malicious software is prevented or detected and acted upon.',
    keywords: ['malware', 'antivirus', 'anti-malware', 'endpoint protection', 'edr', 'unauthorized software'],
  },
  // CC7 - system operations
  {
    section: 'CC7.1',
    category: OPERATIONS,
    title: 'Vulnerability and configuration monitoring',
    description: 'Detection procedures find configuration changes that introduce weaknesses and newly discovered vulnerabilities.',
    keywords: ['vulnerability scan', 'vulnerability management', 'configuration drift', 'cis benchmark', 'patch management'],
  },
  {
    section: 'CC7.2',
    category: OPERATIONS,
    title: 'Anomaly monitoring',
    description: 'System components are monitored for anomalies that may indicate malicious acts, errors or natural events.',
    keywords: ['monitoring', 'alerting', 'alert', 'siem', 'anomaly detection', 'intrusion detection', 'log monitoring'],
  },
  {
    section: 'CC7.3',
    category: OPERATIONS,
    title: 'Security event evaluation',
    description: 'Security events are evaluated to decide whether they are incidents that need a response.',
    keywords: ['security event', 'triage', 'event evaluation', 'incident classification'],
  },
  {
    section: 'CC7.4',
    category: OPERATIONS,
    title: 'Incident response',
    description: 'Identified incidents are contained, remediated and communicated under a defined response programme.',
    keywords: ['incident response', 'incident', 'security incident', 'on-call', 'postmortem', 'post-mortem'],
  },
  {
    section: 'CC7.5',
    category: OPERATIONS,
    title: 'Incident recovery',
    description: 'Recovery activities restore normal operation after an incident and lessons are fed back into controls.',
    keywords: ['incident recovery', 'recovery', 'restore', 'lessons learned'],
  },
  // CC8 - change management
  {
    section: 'CC8.1',
    category: CHANGE,
    title: 'Change management',
    description:
      'Changes to infrastructure, data, software and procedures are authorised, designed, documented, tested and approved before they are implemented.',
    keywords: ['change management', 'change request', 'code review', 'pull request', 'deployment', 'release', 'change approval', 'emergency change'],
  },
  // CC9 - risk mitigation
  {
    section: 'CC9.1',
    category: RISK_MITIGATION,
    title: 'Business disruption risk',
    description: 'Activities to mitigate risks from business disruption are identified and developed, including insurance.',
    keywords: ['business continuity', 'business disruption', 'bcp', 'cyber insurance'],
  },
  {
    section: 'CC9.2',
    category: RISK_MITIGATION,
    title: 'Vendor and partner risk',
    description: 'Risks from vendors and business partners are assessed and managed, with their commitments monitored.',
    keywords: ['vendor', 'vendor management', 'third-party risk', 'subprocessor', 'supplier'],
  },
  // A1 - availability
  {
    section: 'A1.1',
    category: AVAILABILITY,
    title: 'Capacity management',
    description: 'Current capacity is monitored and demand forecast so that availability commitments can be met.',
    keywords: ['capacity', 'capacity planning', 'autoscaling', 'load forecast'],
  },
  {
    section: 'A1.2',
    category: AVAILABILITY,
    title: 'Environmental protection and backups',
    description: 'Environmental protections, backups and recovery infrastructure are put in place and maintained.',
    keywords: ['backup', 'backups', 'redundancy', 'failover', 'environmental protection'],
  },
  {
    section: 'A1.3',
    category: AVAILABILITY,
    title: 'Recovery plan testing',
    description: 'Recovery plans are tested periodically to show they achieve the recovery objectives.',
    keywords: ['disaster recovery', 'dr test', 'restore test', 'rto', 'rpo'],
  },
  // C1 - confidentiality
  {
    section: 'C1.1',
    category: CONFIDENTIALITY,
    title: 'Identify and protect confidential information',
    description: 'Confidential information is identified and protected according to confidentiality commitments.',
    keywords: ['confidential', 'confidentiality', 'data classification'],
  },
  {
    section: 'C1.2',
    category: CONFIDENTIALITY,
    title: 'Dispose of confidential information',
    description: 'Confidential information is disposed of once its retention period ends.',
    keywords: ['secure deletion', 'data disposal', 'retention schedule', 'purge'],
  },
  // PI1 - processing integrity
  {
    section: 'PI1.1',
    category: PROCESSING_INTEGRITY,
    title: 'Processing specifications',
    description: 'Definitions of data and product specifications are captured and communicated so processing can be judged complete and accurate.',
    keywords: ['data definition', 'data dictionary', 'processing specification'],
  },
  {
    section: 'PI1.2',
    category: PROCESSING_INTEGRITY,
    title: 'Input controls',
    description: 'Inputs are checked for completeness and accuracy before processing.',
    keywords: ['input validation', 'data validation', 'input check'],
  },
  {
    section: 'PI1.3',
    category: PROCESSING_INTEGRITY,
    title: 'Processing controls',
    description: 'Processing is complete, accurate and timely against specifications.',
    keywords: ['processing error', 'reconciliation', 'idempotent', 'job monitoring'],
  },
  {
    section: 'PI1.4',
    category: PROCESSING_INTEGRITY,
    title: 'Output controls',
    description: 'Outputs are complete, accurate and delivered only to intended recipients on time.',
    keywords: ['output validation', 'report accuracy', 'output delivery'],
  },
  {
    section: 'PI1.5',
    category: PROCESSING_INTEGRITY,
    title: 'Storage of inputs and outputs',
    description: 'Inputs, items in process and outputs are stored completely and accurately for as long as specified.',
    keywords: ['data storage', 'data integrity', 'checksum'],
  },
  // P1-P8 - privacy
  {
    section: 'P1.1',
    category: PRIVACY,
    title: 'Privacy notice',
    description: 'Data subjects are told about the privacy practices that apply to them.',
    keywords: ['privacy notice', 'privacy policy'],
  },
  {
    section: 'P2.1',
    category: PRIVACY,
    title: 'Choice and consent',
    description: 'Data subjects are told their choices, consent is obtained where needed and the consequences of refusing are explained.',
    keywords: ['consent', 'opt-in', 'opt-out', 'preference center'],
  },
  {
    section: 'P3.1',
    category: PRIVACY,
    title: 'Collection consistent with objectives',
    description: 'Personal information is collected only as needed for the stated privacy objectives.',
    keywords: ['data collection', 'collection limitation', 'personal information'],
  },
  {
    section: 'P3.2',
    category: PRIVACY,
    title: 'Explicit consent for sensitive data',
    description: 'Explicit consent is obtained and recorded before collecting sensitive personal information.',
    keywords: ['explicit consent', 'sensitive personal information'],
  },
  {
    section: 'P4.1',
    category: PRIVACY,
    title: 'Use limited to purpose',
    description: 'Personal information is used only for the purposes disclosed to the data subject.',
    keywords: ['purpose limitation', 'use limitation'],
  },
  {
    section: 'P4.2',
    category: PRIVACY,
    title: 'Retention',
    description: 'Personal information is retained only as long as needed for the stated objectives.',
    keywords: ['retention', 'retention period', 'retain'],
  },
  {
    section: 'P4.3',
    category: PRIVACY,
    title: 'Secure disposal',
    description: 'Personal information is securely disposed of when no longer needed.',
    keywords: ['disposal', 'secure deletion', 'anonymization', 'anonymisation'],
  },
  {
    section: 'P5.1',
    category: PRIVACY,
    title: 'Access to personal information',
    description: 'Authenticated data subjects can see the personal information held about them.',
    keywords: ['subject access', 'access request', 'view my data', 'data export'],
  },
  {
    section: 'P5.2',
    category: PRIVACY,
    title: 'Correction of personal information',
    description: 'Data subjects can correct or amend their information and corrections reach third parties where required.',
    keywords: ['correction', 'amendment', 'rectification'],
  },
  {
    section: 'P6.1',
    category: PRIVACY,
    title: 'Disclosure to third parties',
    description: 'Personal information is disclosed to third parties only for disclosed purposes and with consent where required.',
    keywords: ['third-party disclosure', 'data sharing'],
  },
  {
    section: 'P6.2',
    category: PRIVACY,
    title: 'Record of authorised disclosures',
    description: 'Authorised disclosures are recorded completely and accurately.',
    keywords: ['disclosure log', 'authorized disclosure', 'authorised disclosure'],
  },
  {
    section: 'P6.3',
    category: PRIVACY,
    title: 'Record of unauthorised disclosures',
    description: 'Unauthorised disclosures, including breaches, are recorded.',
    keywords: ['unauthorized disclosure', 'unauthorised disclosure', 'breach log'],
  },
  {
    section: 'P6.4',
    category: PRIVACY,
    title: 'Third-party privacy commitments',
    description: 'Vendors handling personal information commit to matching privacy obligations and are assessed against them.',
    keywords: ['vendor privacy', 'data processing agreement', 'dpa'],
  },
  {
    section: 'P6.5',
    category: PRIVACY,
    title: 'Third-party breach reporting',
    description: 'Vendors are required to report unauthorised disclosures to the organisation.',
    keywords: ['vendor breach notification', 'third-party breach'],
  },
  {
    section: 'P6.6',
    category: PRIVACY,
    title: 'Breach notification',
    description: 'Affected data subjects and regulators are notified of breaches as commitments and laws require.',
    keywords: ['breach notification', 'data breach'],
  },
  {
    section: 'P6.7',
    category: PRIVACY,
    title: 'Accounting of disclosures',
    description: 'On request, data subjects receive an account of the personal information held and disclosed about them.',
    keywords: ['accounting of disclosures', 'disclosure report'],
  },
  {
    section: 'P7.1',
    category: PRIVACY,
    title: 'Data quality',
    description: 'Personal information is kept accurate, complete and relevant.',
    keywords: ['data quality', 'data accuracy'],
  },
  {
    section: 'P8.1',
    category: PRIVACY,
    title: 'Privacy monitoring and complaints',
    description: 'Privacy inquiries, complaints and disputes are handled and compliance with privacy commitments is monitored.',
    keywords: ['privacy complaint', 'privacy inquiry', 'dispute resolution', 'privacy monitoring'],
  },
];

export const SOC2_CLAUSES = defineClauses('soc2', definitions);

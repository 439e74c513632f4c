import { defineClauses, type ClauseDefinition } from './types';

/*
 * ISO 13485:2016 - quality management systems for medical devices.
 * Clause numbers follow the standard; titles and descriptions are our own
 * paraphrases (the standard's text is copyrighted). Parent clauses such as 7.3
 * sit before their sub-clauses so catalogue order equals document order.
 */

const QMS = 'Quality management system';
const MANAGEMENT = 'Management responsibility';
const RESOURCES = 'Resource management';
const REALIZATION = 'Product realization';
const IMPROVEMENT = 'Measurement, analysis and improvement';

export const ISO13485_CATEGORIES = [QMS, MANAGEMENT, RESOURCES, REALIZATION, IMPROVEMENT];

const definitions: ClauseDefinition[] = [
  {
    section: '4.1',
    category: QMS,
    title: 'QMS general requirements',
    description:
      'Define the processes of the quality system, apply a risk-based approach to controlling them, keep control over outsourced processes and validate software used by the quality system.',
    keywords: ['quality management system', 'qms', 'outsourced process', 'risk-based approach', 'qms software', 'software validation'],
  },
  {
    section: '4.2.1',
    category: QMS,
    title: 'Documentation (general)',
    description: 'The quality system is documented: policy, objectives, manual, procedures and the records the standard asks for.',
    keywords: ['documentation', 'documented procedure', 'quality documentation', 'sop'],
  },
  {
    section: '4.2.2',
    category: QMS,
    title: 'Quality manual',
    description: 'A manual describes the scope of the quality system, justified exclusions and how its processes interact.',
    keywords: ['quality manual'],
  },
  {
    section: '4.2.3',
    category: QMS,
    title: 'Medical device file',
    description:
      'For each device type or family keep a file describing the device, its labelling, specifications and the procedures for making, storing and servicing it.',
    keywords: ['medical device file', 'technical file', 'technical documentation', 'device master record'],
  },
  {
    section: '4.2.4',
    category: QMS,
    title: 'Document control',
    description:
      'Documents are reviewed and approved before issue, changes are identified and re-approved, current versions are available where used and obsolete ones cannot be used by mistake.',
    keywords: ['document control', 'controlled document', 'document approval', 'document revision', 'document change', 'obsolete document', 'version control'],
  },
  {
    section: '4.2.5',
    category: QMS,
    title: 'Record control',
    description:
      'Records proving conformity stay legible, identifiable and retrievable, are protected from unauthorised change and are kept for the defined retention period.',
    keywords: ['record control', 'quality record', 'records', 'record retention', 'retention period', 'retrievable'],
  },
  {
    section: '5.1',
    category: MANAGEMENT,
    title: 'Management commitment',
    description: 'Top management shows its commitment by setting policy and objectives, running reviews and making resources available.',
    keywords: ['management commitment', 'top management', 'leadership'],
  },
  {
    section: '5.2',
    category: MANAGEMENT,
    title: 'Customer focus',
    description: 'Customer needs and applicable regulatory requirements are identified and met.',
    keywords: ['customer focus', 'customer requirement', 'regulatory requirement'],
  },
  {
    section: '5.3',
    category: MANAGEMENT,
    title: 'Quality policy',
    description: 'A quality policy suited to the organisation is communicated, understood and kept under review.',
    keywords: ['quality policy'],
  },
  {
    section: '5.4',
    category: MANAGEMENT,
    title: 'Planning',
    description: 'Measurable quality objectives are set and the quality system is planned so that changes do not break it.',
    keywords: ['quality objective', 'quality planning', 'qms planning', 'measurable objective'],
  },
  {
    section: '5.5',
    category: MANAGEMENT,
    title: 'Responsibility, authority and communication',
    description:
      'Roles and authorities are defined and documented, a management representative is appointed and the effectiveness of the system is communicated internally.',
    keywords: ['responsibility and authority', 'management representative', 'internal communication', 'organization chart', 'organisation chart', 'raci'],
  },
  {
    section: '5.6',
    category: MANAGEMENT,
    title: 'Management review',
    description: 'At planned intervals management reviews defined inputs (audits, feedback, CAPA, changes) and records the decisions taken.',
    keywords: ['management review', 'review input', 'review output'],
  },
  {
    section: '6.1',
    category: RESOURCES,
    title: 'Provision of resources',
    description: 'Enough resources are made available to run the quality system and to meet regulatory and customer needs.',
    keywords: ['provision of resources', 'resourcing', 'staffing', 'budget'],
  },
  {
    section: '6.2',
    category: RESOURCES,
    title: 'Human resources',
    description: 'People affecting product quality are competent, trained where needed and the effectiveness of training is checked and recorded.',
    keywords: ['training', 'training record', 'competence', 'competency', 'qualification', 'awareness'],
  },
  {
    section: '6.3',
    category: RESOURCES,
    title: 'Infrastructure',
    description: 'Buildings, equipment, IT systems and supporting services are specified and maintained so that product requirements can be met.',
    keywords: ['infrastructure', 'facility', 'facilities', 'equipment maintenance', 'information system', 'supporting service'],
  },
  {
    section: '6.4',
    category: RESOURCES,
    title: 'Work environment and contamination control',
    description: 'The working environment and any contamination risk to product, people or the workspace are defined and controlled.',
    keywords: ['work environment', 'contamination', 'cleanroom', 'clean room', 'environmental control'],
  },
  {
    section: '7.1',
    category: REALIZATION,
    title: 'Planning of product realization',
    description: 'Realization processes are planned together with a documented risk management process that spans the whole product lifecycle.',
    keywords: ['product realization', 'product realisation', 'risk management', 'iso 14971', 'risk analysis', 'hazard analysis'],
  },
  {
    section: '7.2',
    category: REALIZATION,
    title: 'Customer-related processes',
    description:
      'Product requirements (including intended use and regulatory needs) are determined and reviewed before commitment, and communication with customers and regulators is arranged.',
    keywords: ['intended use', 'contract review', 'order review', 'customer communication', 'labelling', 'labeling', 'advisory notice'],
  },
  {
    section: '7.3',
    category: REALIZATION,
    title: 'Design and development',
    description: 'Design work is carried out under documented design controls from planning through transfer.',
    keywords: ['design and development', 'design control', 'design controls'],
  },
  {
    section: '7.3.2',
    category: REALIZATION,
    title: 'Design and development planning',
    description: 'Design plans set out stages, reviews, verification, validation, transfer activities, responsibilities and traceability.',
    keywords: ['design plan', 'development plan', 'design planning', 'design stage', 'design phase'],
  },
  {
    section: '7.3.3',
    category: REALIZATION,
    title: 'Design and development inputs',
    description:
      'Functional, performance, usability, safety and regulatory inputs are captured, reviewed for adequacy and made complete, unambiguous and verifiable.',
    keywords: ['design input', 'user need', 'functional requirement', 'performance requirement', 'usability requirement', 'safety requirement'],
  },
  {
    section: '7.3.4',
    category: REALIZATION,
    title: 'Design and development outputs',
    description: 'Outputs can be checked against inputs, give the information needed for purchasing and production, and define acceptance criteria.',
    keywords: ['design output', 'specification', 'drawing', 'acceptance criteria'],
  },
  {
    section: '7.3.5',
    category: REALIZATION,
    title: 'Design and development review',
    description: 'Planned, recorded reviews at suitable stages check whether the design can meet its requirements and raise necessary actions.',
    keywords: ['design review', 'phase review', 'stage gate'],
  },
  {
    section: '7.3.6',
    category: REALIZATION,
    title: 'Design and development verification',
    description: 'Documented verification (tests, inspections, analyses) confirms that outputs meet inputs, with methods, criteria and sample sizes justified.',
    keywords: ['design verification', 'verification', 'verify', 'verified', 'test protocol', 'test report', 'unit test', 'integration test'],
  },
  {
    section: '7.3.7',
    category: REALIZATION,
    title: 'Design and development validation',
    description:
      'Validation on representative product shows the device meets user needs and intended use, including clinical and usability evaluation where required.',
    keywords: ['design validation', 'validation', 'validate', 'validated', 'clinical evaluation', 'usability validation', 'user acceptance', 'simulated use'],
  },
  {
    section: '7.3.8',
    category: REALIZATION,
    title: 'Design and development transfer',
    description: 'Design outputs are confirmed as suitable for manufacturing before they become production specifications.',
    keywords: ['design transfer', 'transfer to production', 'manufacturing transfer'],
  },
  {
    section: '7.3.9',
    category: REALIZATION,
    title: 'Control of design and development changes',
    description:
      'Design changes are identified, assessed for impact on function, safety and regulatory status, then verified, validated and approved before use.',
    keywords: ['design change', 'change control', 'change impact', 'engineering change'],
  },
  {
    section: '7.3.10',
    category: REALIZATION,
    title: 'Design and development files',
    description: 'A design file per device type or family holds, or points to, the records that show design requirements were met.',
    keywords: ['design history file', 'dhf', 'design file'],
  },
  {
    section: '7.4',
    category: REALIZATION,
    title: 'Purchasing',
    description:
      'Suppliers are evaluated, selected and monitored in proportion to risk, purchase information is clear and purchased product is verified on receipt.',
    keywords: ['purchasing', 'supplier', 'supplier evaluation', 'approved supplier', 'purchased product', 'procurement', 'outsourcing'],
  },
  {
    section: '7.5',
    category: REALIZATION,
    title: 'Production and service provision',
    description:
      'Production, installation and servicing run under controlled conditions with documented procedures, and a production record exists for each unit or batch.',
    keywords: ['production', 'manufacturing', 'service provision', 'work instruction', 'batch record', 'device history record', 'servicing', 'installation'],
  },
  {
    section: '7.5.6',
    category: REALIZATION,
    title: 'Validation of production and service processes',
    description:
      'Processes whose output cannot be fully verified afterwards, including production software, are validated before use and revalidated after changes.',
    keywords: ['process validation', 'software validation', 'installation qualification', 'operational qualification', 'performance qualification', 'iq oq pq'],
  },
  {
    section: '7.5.8',
    category: REALIZATION,
    title: 'Identification',
    description: 'Product and its inspection status are identified throughout realization, including unique device identification where required.',
    keywords: ['product identification', 'udi', 'unique device identifier', 'status identification'],
  },
  {
    section: '7.5.9',
    category: REALIZATION,
    title: 'Traceability',
    description: 'The extent of traceability is defined and recorded, with stricter rules for implantable devices (components, materials, conditions).',
    keywords: ['traceability', 'traceable', 'trace matrix', 'lot number', 'serial number', 'batch number'],
  },
  {
    section: '7.5.11',
    category: REALIZATION,
    title: 'Preservation of product',
    description: 'Product is protected against alteration, contamination or damage during processing, storage, handling and distribution.',
    keywords: ['preservation', 'packaging', 'storage condition', 'shelf life', 'handling'],
  },
  {
    section: '7.6',
    category: REALIZATION,
    title: 'Control of monitoring and measuring equipment',
    description:
      'Measuring equipment is calibrated or verified against traceable standards, protected from invalid adjustment, and software used for measurement is validated.',
    keywords: ['calibration', 'calibrated', 'measuring equipment', 'monitoring equipment', 'metrology'],
  },
  {
    section: '8.1',
    category: IMPROVEMENT,
    title: 'Measurement, analysis and improvement (general)',
    description: 'Monitoring, measurement and analysis processes, including suitable statistical techniques, are planned to show conformity and effectiveness.',
    keywords: ['statistical technique', 'measurement and analysis'],
  },
  {
    section: '8.2',
    category: IMPROVEMENT,
    title: 'Monitoring and measurement',
    description: 'Umbrella clause for feedback, complaints, regulatory reporting, internal audit and process/product monitoring.',
    keywords: ['monitoring and measurement'],
  },
  {
    section: '8.2.1',
    category: IMPROVEMENT,
    title: 'Feedback',
    description: 'Information from production and post-production is gathered and fed into risk management and improvement.',
    keywords: ['feedback', 'customer feedback', 'post-market surveillance', 'post-market'],
  },
  {
    section: '8.2.2',
    category: IMPROVEMENT,
    title: 'Complaint handling',
    description: 'Complaints are received, recorded, investigated and decided on in a timely way, with a rationale where no investigation is made.',
    keywords: ['complaint', 'complaint handling'],
  },
  {
    section: '8.2.3',
    category: IMPROVEMENT,
    title: 'Reporting to regulatory authorities',
    description: 'Events that meet regulatory reporting criteria, such as adverse events or advisory notices, are reported and the reports kept.',
    keywords: ['adverse event', 'vigilance', 'regulatory reporting', 'field safety', 'recall'],
  },
  {
    section: '8.2.4',
    category: IMPROVEMENT,
    title: 'Internal audit',
    description: 'Planned, impartial internal audits check that the quality system conforms and is effective; findings lead to timely action.',
    keywords: ['internal audit', 'audit programme', 'audit program', 'auditor'],
  },
  {
    section: '8.2.5',
    category: IMPROVEMENT,
    title: 'Monitoring and measurement of processes',
    description: 'Quality system processes are monitored with suitable methods; when results miss targets, correction or corrective action follows.',
    keywords: ['process monitoring', 'process metric', 'kpi', 'process performance'],
  },
  {
    section: '8.2.6',
    category: IMPROVEMENT,
    title: 'Monitoring and measurement of product',
    description: 'Product characteristics are checked at planned stages and release is recorded with the identity of the person authorising it.',
    keywords: ['product acceptance', 'inspection', 'final inspection', 'product release'],
  },
  {
    section: '8.3',
    category: IMPROVEMENT,
    title: 'Control of nonconforming product',
    description: 'Nonconforming product is identified, segregated and dispositioned (rework, concession, scrap) under documented authority.',
    keywords: ['nonconforming', 'nonconformance', 'non-conforming', 'non-conformance', 'ncr', 'rework', 'concession', 'quarantine'],
  },
  {
    section: '8.4',
    category: IMPROVEMENT,
    title: 'Analysis of data',
    description: 'Data from feedback, audits, processes, product and suppliers is analysed to judge the suitability of the quality system.',
    keywords: ['data analysis', 'trend analysis', 'trending', 'statistical analysis'],
  },
  {
    section: '8.5',
    category: IMPROVEMENT,
    title: 'Improvement',
    description: 'Changes needed to keep the quality system and device safe and effective are identified and made, mainly through CAPA.',
    keywords: ['improvement', 'capa', 'corrective and preventive action', 'continual improvement'],
  },
  {
    section: '8.5.2',
    category: IMPROVEMENT,
    title: 'Corrective action',
    description: 'Causes of nonconformities are found and removed without undue delay, and the effectiveness of the action is checked.',
    keywords: ['corrective action', 'root cause', 'capa', 'effectiveness check'],
  },
  {
    section: '8.5.3',
    category: IMPROVEMENT,
    title: 'Preventive action',
    description: 'Causes of potential nonconformities are identified and addressed before they occur.',
    keywords: ['preventive action', 'preventative action', 'potential nonconformity', 'capa'],
  },
];

export const ISO13485_CLAUSES = defineClauses('iso13485', definitions);

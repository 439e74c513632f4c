/**
 * The permission set. Each operation of every transport needs exactly one of these
 * (see docs/permissions.md); the admin key holds all of them.
 */
export const PERMISSIONS = {
  'read:requirements': 'List and read requirements, run validation reads',
  'write:requirements': 'Create, update, delete and validate requirements; batch operations',
  'read:compliance': 'Read compliance status, frameworks and reports',
  'write:compliance': 'Request compliance reports and assessments',
  'read:audits': 'List audit findings',
  'write:audits': 'Record and update audit findings',
  'read:dashboard': 'Read dashboard metrics, status, history and reports; receive live events',
  'write:dashboard': 'Request dashboard reports',
  'manage:webhooks': 'Register, list and delete webhooks and read their deliveries',
  'manage:api-keys': 'Issue API keys (only with permissions the issuer holds)',
  'read:audit-trail': 'Read and verify the audit trail of every change',
  'sign:reports': 'Sign completed compliance reports (reviewed, approved)',
  'tts:generate': 'Generate speech, estimate cost, look up hashes',
  'tts:read': 'Read audio, metadata, providers, voices and statistics',
  'tts:admin': 'Administer the audio cache',
} as const;

export type Permission = keyof typeof PERMISSIONS;
export const ALL_PERMISSIONS = Object.keys(PERMISSIONS) as Permission[];

export function isPermission(p: string): p is Permission {
  return Object.prototype.hasOwnProperty.call(PERMISSIONS, p);
}

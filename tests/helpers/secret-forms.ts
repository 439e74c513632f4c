/** Every form a vendor has been seen (or could be expected) to quote a key in. */
export function quotedForms(secret: string): Record<string, string> {
  const bytes = Buffer.from(secret);
  return {
    plain: secret,
    upper: secret.toUpperCase(),
    lower: secret.toLowerCase(),
    reversed: [...secret].reverse().join(''),
    base64: bytes.toString('base64'),
    base64url: bytes.toString('base64url'),
    base64InBasicAuth: Buffer.from(`user:${secret}`).toString('base64'),
    hex: bytes.toString('hex'),
    hexUpper: bytes.toString('hex').toUpperCase(),
    urlEncoded: encodeURIComponent(secret),
    prefix8: secret.slice(0, 8),
    prefix12: secret.slice(0, 12),
    tail10: secret.slice(-10),
  };
}

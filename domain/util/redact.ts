/**
 * Removes configured secrets from free text (vendor error bodies, log lines) in any of the forms a
 * vendor or a library may quote them: as is, upper or lower case, reversed, base64 / base64url (at
 * any byte alignment, as when the secret sits inside a longer encoded string), hex, URL-encoded;
 * and any run of at least `MIN_FRAGMENT` characters of one of those forms (a prefix, a tail).
 */
export const MIN_FRAGMENT = 8;
export const REDACTED = '[redacted]';

function base64Forms(secret: Buffer): string[] {
  const forms: string[] = [];
  // The secret preceded by 0, 1 or 2 other bytes: its characters after the first mixed group.
  for (let pad = 0; pad < 3; pad++) {
    const n = pad + secret.length;
    const b64 = Buffer.concat([Buffer.alloc(pad), secret]).toString('base64');
    // The first group mixes in the bytes before the secret, a partial last group those after it:
    // only the groups made of the secret's bytes alone are the same wherever it sits.
    const body = b64.slice(pad === 0 ? 0 : 4, Math.floor(n / 3) * 4);
    forms.push(body, body.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return forms;
}

/** Every form of one secret that is matched (case-insensitively). */
export function secretForms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const forms = new Set<string>([
    secret,
    [...secret].reverse().join(''),
    encodeURIComponent(secret),
    encodeURI(secret),
    bytes.toString('hex'),
    bytes.toString('base64'),
    bytes.toString('base64url'),
    ...base64Forms(bytes),
    JSON.stringify(secret).slice(1, -1),
  ]);
  for (const f of [...forms]) forms.add([...f].reverse().join(''));
  return [...forms].filter((f) => f.length > 0);
}

export type Redactor = (text: string) => string;

/**
 * Builds a redactor for a fixed set of secrets. Matching is case-insensitive; every character of
 * the text covered by a whole form or by a window of `MIN_FRAGMENT` characters of a form is
 * replaced, adjacent covered runs becoming one `[redacted]`.
 */
export function secretRedactor(secrets: ReadonlyArray<string | undefined | null>): Redactor {
  const wholes: string[] = [];
  const windows = new Set<string>();
  for (const secret of secrets) {
    if (!secret || secret.length < 4) continue;
    for (const form of secretForms(secret)) {
      const lower = form.toLowerCase();
      if (lower.length < MIN_FRAGMENT) {
        if (lower.length >= 4) wholes.push(lower);
        continue;
      }
      for (let i = 0; i + MIN_FRAGMENT <= lower.length; i++) windows.add(lower.slice(i, i + MIN_FRAGMENT));
    }
  }
  if (!wholes.length && !windows.size) return (text) => text;
  return (text) => {
    if (!text) return text;
    const lower = text.toLowerCase();
    // toLowerCase keeps lengths for nearly all text; when it does not, match on the text itself.
    const hay = lower.length === text.length ? lower : text;
    let covered: Uint8Array | null = null;
    const cover = (from: number, to: number) => {
      covered ??= new Uint8Array(text.length);
      covered.fill(1, from, to);
    };
    if (windows.size) {
      for (let i = 0; i + MIN_FRAGMENT <= hay.length; i++) {
        if (windows.has(hay.slice(i, i + MIN_FRAGMENT))) cover(i, i + MIN_FRAGMENT);
      }
    }
    for (const w of wholes) {
      for (let at = hay.indexOf(w); at >= 0; at = hay.indexOf(w, at + 1)) cover(at, at + w.length);
    }
    if (!covered) return text;
    const mask: Uint8Array = covered;
    let out = '';
    for (let i = 0; i < text.length;) {
      if (!mask[i]) {
        out += text[i++];
        continue;
      }
      while (i < text.length && mask[i]) i++;
      out += REDACTED;
    }
    return out;
  };
}

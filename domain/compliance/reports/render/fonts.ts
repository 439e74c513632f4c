import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

/**
 * The fonts embedded in PDF reports, shipped by npm packages (both SIL OFL / Bitstream Vera
 * licensed, free to embed):
 *
 * - DejaVu Sans (`@fontsource/dejavu-sans`): Latin, Greek, Cyrillic, Hebrew, Arabic, Armenian,
 *   Georgian, arrows, maths, box drawing, dingbats (✓ ✗ ☐ ★ …) — about 6,000 glyphs;
 * - Noto Sans Hans (`@embedpdf/fonts-sc`): Chinese (GB 2312), Japanese kana, CJK punctuation and
 *   full-width forms, for what DejaVu lacks. Loaded only by a report that needs it.
 *
 * Text is set run by run in the first face that has each character, so nothing is replaced.
 */
export type FaceKey = 'regular' | 'bold' | 'italic' | 'cjk' | 'cjkBold';

interface FontkitFont {
  hasGlyphForCodePoint(codePoint: number): boolean;
}

const dejavuDir = () => path.join(path.dirname(require.resolve('@fontsource/dejavu-sans/LICENSE')), 'files');
const notoHansDir = () => path.join(path.dirname(require.resolve('@embedpdf/fonts-sc')), '..', 'fonts');

const FILES: Record<FaceKey, () => string> = {
  regular: () => path.join(dejavuDir(), 'dejavu-sans-latin-400-normal.woff'),
  bold: () => path.join(dejavuDir(), 'dejavu-sans-latin-700-normal.woff'),
  italic: () => path.join(dejavuDir(), 'dejavu-sans-latin-400-italic.woff'),
  cjk: () => path.join(notoHansDir(), 'NotoSansHans-Regular.otf'),
  cjkBold: () => path.join(notoHansDir(), 'NotoSansHans-Bold.otf'),
};

export interface LoadedFace {
  bytes: Buffer;
  font: FontkitFont;
}

const loaded = new Map<FaceKey, LoadedFace>();

export const facePath = (key: FaceKey): string => FILES[key]();

const fontkit = () => require('fontkit') as { create(buffer: Buffer): FontkitFont };

/**
 * WOFF 1.0 → plain sfnt (TrueType/OpenType): the tables inflated once with zlib. fontkit reads
 * WOFF too, but inflates a table in JavaScript on every access, which made one report take seconds.
 */
export function woffToSfnt(woff: Buffer): Buffer {
  if (woff.readUInt32BE(0) !== 0x774f4646) return woff; // not 'wOFF': already an sfnt
  const flavor = woff.readUInt32BE(4);
  const numTables = woff.readUInt16BE(12);
  const tables: { tag: number; checksum: number; data: Buffer }[] = [];
  for (let i = 0; i < numTables; i++) {
    const at = 44 + i * 20;
    const offset = woff.readUInt32BE(at + 4);
    const compLength = woff.readUInt32BE(at + 8);
    const origLength = woff.readUInt32BE(at + 12);
    const raw = woff.subarray(offset, offset + compLength);
    tables.push({ tag: woff.readUInt32BE(at), checksum: woff.readUInt32BE(at + 16), data: compLength < origLength ? zlib.inflateSync(raw) : Buffer.from(raw) });
  }
  const entrySelector = Math.floor(Math.log2(numTables));
  const searchRange = 2 ** entrySelector * 16;
  const header = Buffer.alloc(12 + 16 * numTables);
  header.writeUInt32BE(flavor, 0);
  header.writeUInt16BE(numTables, 4);
  header.writeUInt16BE(searchRange, 6);
  header.writeUInt16BE(entrySelector, 8);
  header.writeUInt16BE(numTables * 16 - searchRange, 10);
  const bodies: Buffer[] = [];
  let offset = header.length;
  tables.forEach((t, i) => {
    const at = 12 + i * 16;
    header.writeUInt32BE(t.tag, at);
    header.writeUInt32BE(t.checksum, at + 4);
    header.writeUInt32BE(offset, at + 8);
    header.writeUInt32BE(t.data.length, at + 12);
    const padded = Buffer.alloc((t.data.length + 3) & ~3);
    t.data.copy(padded);
    bodies.push(padded);
    offset += padded.length;
  });
  return Buffer.concat([header, ...bodies]);
}

/** Reads and parses a face once per process (the CJK faces only when a report needs them). */
export function face(key: FaceKey): LoadedFace {
  let f = loaded.get(key);
  if (!f) {
    const bytes = woffToSfnt(fs.readFileSync(FILES[key]()));
    f = { bytes, font: fontkit().create(bytes) };
    loaded.set(key, f);
  }
  return f;
}

export interface Style {
  bold?: boolean;
  italic?: boolean;
}

const primaryOf = (style: Style): FaceKey => (style.bold ? 'bold' : style.italic ? 'italic' : 'regular');

/**
 * The face that sets a character: the style's own face if it has the glyph, else the CJK face of
 * the same weight, else the regular face; a character no face has stays in the style's face (it
 * still reaches the text layer, as a box on the page).
 */
export function faceFor(codePoint: number, style: Style): FaceKey {
  const primary = primaryOf(style);
  if (face(primary).font.hasGlyphForCodePoint(codePoint)) return primary;
  const cjk: FaceKey = style.bold ? 'cjkBold' : 'cjk';
  if (face(cjk).font.hasGlyphForCodePoint(codePoint)) return cjk;
  if (primary !== 'regular' && face('regular').font.hasGlyphForCodePoint(codePoint)) return 'regular';
  return primary;
}

export interface Run {
  face: FaceKey;
  text: string;
}

const NEUTRAL = /[\s\u200b-\u200d\ufeff]/u;

/** Splits text into runs of one face each; spaces join the run they are in. */
export function runsOf(text: string, style: Style): Run[] {
  const runs: Run[] = [];
  for (const char of text) {
    const cp = char.codePointAt(0)!;
    const last = runs[runs.length - 1];
    const key = last && NEUTRAL.test(char) ? last.face : faceFor(cp, style);
    if (last && last.face === key) last.text += char;
    else runs.push({ face: key, text: char });
  }
  return runs;
}

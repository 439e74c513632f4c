import bidiFactory from 'bidi-js';
import { runsOf, type FaceKey, type Style } from './fonts';

/**
 * Right-to-left text in PDF reports (issue 35): the Unicode bidirectional algorithm (bidi-js, UAX #9)
 * orders a line's runs for display; fontkit shapes each run (Arabic joining forms, lam-alef and other
 * ligatures) and lays a right-to-left run out right to left. Lines are broken in logical order first,
 * then each line is reordered, as UAX #9 prescribes.
 */
export type Direction = 'ltr' | 'rtl';

/** A run drawn left to right on the page: one face, one direction; `text` is in logical order. */
export interface VisualRun {
  face: FaceKey;
  text: string;
  rtl: boolean;
}

let engine: ReturnType<typeof bidiFactory> | undefined;
const bidi = () => (engine ??= bidiFactory());

/** Characters of right-to-left scripts and the explicit RTL marks; text without any needs no bidi work. */
const RTL_CHARS = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc\u200f\u202b\u202e\u2067]|\ud802[\udc00-\udfff]|\ud83a[\udc00-\udfff]/u;
/** Scripts fontkit lays out right to left by itself (it reverses the glyphs of such a run). */
const FONTKIT_RTL_SCRIPT = /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}]/u;
const STRONG = /[\p{L}\u200e\u200f]/u;

export const hasRtl = (text: string): boolean => RTL_CHARS.test(text);

/** The paragraph's direction by its first strong character (UAX #9 P2–P3); Latin, CJK, Greek and no letters at all: ltr. */
export function directionOf(text: string): Direction {
  if (!hasRtl(text)) return 'ltr';
  const first = STRONG.exec(text);
  return first && (RTL_CHARS.test(first[0]) || first[0] === '\u200f') ? 'rtl' : 'ltr';
}

/** fontkit reverses runs of right-to-left scripts itself; any other run set right to left (neutrals) is reversed here. */
export const shapedByFontkit = (text: string): boolean => FONTKIT_RTL_SCRIPT.test(text);

const reverseCodePoints = (text: string) => [...text].reverse().join('');

/**
 * The runs of one line in display order, left to right. Each right-to-left run keeps its text in
 * logical order (so it is shaped as written) with mirrored brackets swapped in; a run fontkit would
 * not lay out right to left itself (brackets and punctuation alone) is reversed here.
 */
export function visualRuns(line: string, style: Style, direction: Direction): VisualRun[] {
  if (!hasRtl(line) && direction === 'ltr') return runsOf(line, style).map((run) => ({ ...run, rtl: false }));
  const levels = bidi().getEmbeddingLevels(line, direction);
  const mirrored = bidi().getMirroredCharactersMap(line, levels.levels);
  const chars = [...line];
  // Level runs in logical order, by code point (a surrogate pair takes its first half's level).
  const runs: { text: string; level: number }[] = [];
  let at = 0;
  for (const char of chars) {
    const level = levels.levels[at];
    const shown = mirrored.get(at) ?? char;
    const last = runs[runs.length - 1];
    if (last && last.level === level) last.text += shown;
    else runs.push({ text: shown, level });
    at += char.length;
  }
  // UAX #9 L2: from the highest level down to the lowest odd one, reverse each sequence at or above it.
  const highest = Math.max(...runs.map((r) => r.level));
  const lowestOdd = Math.min(...runs.map((r) => r.level).filter((l) => l % 2 === 1), highest + 1);
  for (let level = highest; level >= lowestOdd; level--) {
    for (let i = 0; i < runs.length;) {
      if (runs[i].level < level) {
        i++;
        continue;
      }
      let j = i;
      while (j < runs.length && runs[j].level >= level) j++;
      runs.splice(i, j - i, ...runs.slice(i, j).reverse());
      i = j;
    }
  }
  const out: VisualRun[] = [];
  for (const run of runs) {
    const rtl = run.level % 2 === 1;
    const faces = runsOf(run.text, style);
    // Within a right-to-left run the logically first face run is the rightmost.
    for (const f of rtl ? faces.reverse() : faces)
      out.push({ face: f.face, text: rtl && !shapedByFontkit(f.text) ? reverseCodePoints(f.text) : f.text, rtl: rtl && shapedByFontkit(f.text) });
  }
  return out;
}

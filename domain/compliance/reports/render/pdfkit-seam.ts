/**
 * The one place PDF reports reach under pdfkit's public API, for two things it does not offer:
 *
 * 1. The text layer of right-to-left runs. pdfkit writes a run's glyphs as laid out, that is in
 *    display order for Arabic and Hebrew, and maps each glyph in the font's ToUnicode CMap to the
 *    characters it was shaped from, in logical order. Text extractors (poppler's pdftotext, pdf.js)
 *    read glyphs in display order and reverse a right-to-left word, so a ligature's characters came
 *    out reversed: "الإلكتروني" read "اإللكتروني". A glyph first drawn in a right-to-left run is
 *    therefore mapped to its full character sequence in display order, before pdfkit maps it.
 * 2. XMP metadata. pdfkit writes the document info (title, author …) into the XMP packet without
 *    escaping XML, so "Müller & Søn" made the metadata of a PDF/A file unreadable. The info is
 *    escaped for the XMP packet only; the Info dictionary keeps the plain text.
 *
 * tests/unit/framework-seams.test.ts fails on a pdfkit version this was not checked against.
 */

/** The pdfkit versions whose EmbeddedFont (`font`, `subset.includeGlyph`, `unicode`) and `endMetadata` this seam was checked against. */
export const PDFKIT_VERSIONS_CHECKED = ['0.20.2'];

interface EmbeddedFontInternals {
  font: { layout(text: string, features: string[]): { glyphs: { id: number; codePoints: number[] }[] } };
  subset: { includeGlyph(id: number): number };
  unicode: (number[] | undefined)[];
}

const internalsOf = (doc: PDFKit.PDFDocument) => (doc as unknown as { _font?: Partial<EmbeddedFontInternals> })._font;

/** Before a right-to-left run is drawn in the current font: its glyphs' ToUnicode entries, in display order. */
export function mapRtlGlyphs(doc: PDFKit.PDFDocument, text: string): void {
  const f = internalsOf(doc);
  if (!f?.font || !f.subset || !f.unicode) return; // not an embedded font
  for (const glyph of f.font.layout(text, []).glyphs) {
    const gid = f.subset.includeGlyph(glyph.id);
    if (f.unicode[gid] == null) f.unicode[gid] = [...glyph.codePoints].reverse();
  }
}

const escapeXml = (value: string) => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The document info as the XMP packet gets it: XML-escaped, while the Info dictionary (already written by then) stays plain. */
export function escapeXmpInfo(doc: PDFKit.PDFDocument): void {
  const d = doc as unknown as { endMetadata(): void; info: Record<string, unknown> };
  const endMetadata = d.endMetadata;
  d.endMetadata = function (this: typeof d) {
    const plain = this.info;
    this.info = Object.fromEntries(Object.entries(plain).map(([k, v]) => [k, typeof v === 'string' ? escapeXml(v) : v]));
    try {
      endMetadata.call(this);
    } finally {
      this.info = plain;
    }
  };
}

// E9's page layout: a quote or invoice drawn with pdfkit in its standard Helvetica
// (no font files; the text stays extractable). Pure: a Sheet in, the PDF's bytes out,
// the same bytes for the same sheet. Run in the PDF worker threads (pdf-pool.ts), so
// a PDF never holds the API's event loop; pdfkit and its font metrics load once per thread.
import { PDFDocument } from './pdfkit-standard-fonts.ts';
import { type Sheet, winAnsi } from './pdf-sheet.ts';

// ---- layout ------------------------------------------------------------------

const MARGIN = 50;
const GREY = '#555555';
const RULE = '#bbbbbb';
/** The box a logo is fitted into, top left (points). */
const LOGO_BOX = [180, 60] as const;

// The two standard fonts' metrics (widths and kerning pairs of the AFM data), read
// once per thread: pdfkit builds them anew for every document, a tenth of a PDF's
// CPU. Each document gets its own font objects (its own PDF references) over the
// same metrics, with the ids and order pdfkit itself gives them (F1 the default
// Helvetica, F2 Helvetica-Bold), so the bytes are pdfkit's own.
const FONTS = ['Helvetica', 'Helvetica-Bold'] as const;
const metrics = (() => {
  const probe = new PDFDocument();
  for (const name of FONTS) probe.font(name);
  const families = Reflect.get(probe, '_fontFamilies') as Record<string, { font: unknown; document: unknown }>;
  return FONTS.map((name, i) => {
    const template = families[name];
    // Kerning looked up in nested Maps: pdfkit joins the two glyph names into a new
    // string key for every glyph it measures (a tenth of a PDF's CPU again).
    const afm = template.font as { kernPairs: Record<string, number>; getKernPair: (left: string, right: string) => number };
    const kern = new Map<string, Map<string, number>>();
    for (const [pair, amount] of Object.entries(afm.kernPairs)) {
      const [left, right] = pair.split('\0');
      let row = kern.get(left);
      if (!row) {
        row = new Map();
        kern.set(left, row);
      }
      row.set(right, amount);
    }
    afm.getKernPair = (left, right) => kern.get(left)?.get(right) ?? 0;
    return { name, id: `F${i + 1}`, template };
  });
})();
function withFonts(doc: PDFKit.PDFDocument): PDFKit.PDFDocument {
  const families = Reflect.get(doc, '_fontFamilies') as Record<string, object>;
  for (const { name, id, template } of metrics) {
    families[name] = Object.assign(Object.create(Object.getPrototypeOf(template) as object) as object, template, { document: doc, id, dictionary: null, embedded: false });
  }
  Reflect.set(doc, '_fontCount', metrics.length);
  return doc.font('Helvetica');
}
// pdfkit's text() sends every string through its line wrapper, which runs the Unicode
// line breaker over it: a fifth of a PDF's CPU (F197), spent finding the one line that a
// quantity, an amount or a short item name always is. A text that surely fits its box on
// one line is drawn by the call the wrapper makes for each line (`_fragment`), with the
// options its line event passes, and leaves the position where the wrapper leaves it, so
// the bytes are the same. "Surely": its width, plus the most kerning could take off at
// each of its characters (the wrapper measures word by word, without the kerning between
// words), fits; no line break in it; and not so near the page's bottom that the wrapper
// would start a page. Any other text goes through text().
const fragment = Reflect.get(PDFDocument.prototype, '_fragment') as (this: PDFKit.PDFDocument, text: string, x: number, y: number, options: object) => void;
const MAX_KERN = Math.max(...metrics.map(({ template }) => Math.max(...Object.values((template.font as { kernPairs: Record<string, number> }).kernPairs).map(Math.abs)))) / 1000;
const BREAKS = /[\n\r\v\f\u0085\u2028\u2029]/;
// The short way on (tests draw without it, to compare the bytes).
let direct = true;
export async function drawEveryTextWrapped<T>(run: () => Promise<T>): Promise<T> {
  direct = false;
  try {
    return await run();
  } finally {
    direct = true;
  }
}
/** Whether a text `measured` wide (doc.widthOfString) surely fits `width` on one line. */
function fitsOneLine(doc: PDFKit.PDFDocument, text: string, measured: number, width: number): boolean {
  const size = Reflect.get(doc, '_fontSize') as number;
  return direct && text !== '' && !BREAKS.test(text) && measured + text.length * MAX_KERN * size <= width;
}
const lineHeight = (doc: PDFKit.PDFDocument) => doc.currentLineHeight(true) + ((Reflect.get(doc, '_lineGap') as number) || 0);
/** doc.text(text, x, y, { width, align }), by the short way when it is surely one line. */
function cell(doc: PDFKit.PDFDocument, text: string, x: number, y: number, width: number, align: 'left' | 'right' = 'left'): void {
  const measured = doc.widthOfString(text);
  if (!fitsOneLine(doc, text, measured, width) || y + 2 * doc.currentLineHeight(true) > doc.page.maxY()) {
    doc.text(text, x, y, { width, align, lineBreak: false });
    return;
  }
  // Right-aligned, the text starts where _fragment would put it (x + (width - its width
  // without trailing spaces), in that order: the same float), and its width is passed
  // as the wrapper passes it: measured once, where _fragment would measure it twice more.
  const trailing = align === 'right' && /\s$/.test(text);
  const start = align === 'right' && !trailing ? x + (width - measured) : x;
  fragment.call(doc, text, start, y, { width, align: trailing ? 'right' : 'left', lineBreak: false, columns: 0, columnGap: 18, rotation: 0, lineWidth: width, textWidth: measured });
  doc.x = x;
  doc.y = y + lineHeight(doc);
}
/** doc.heightOfString(text, { width }), by the short way when it is surely one line. */
const heightOf = (doc: PDFKit.PDFDocument, text: string, width: number): number =>
  fitsOneLine(doc, text, doc.widthOfString(text), width) ? lineHeight(doc) : doc.heightOfString(text, { width });

// pdfkit's option for no default font (its types only know a font name).
const noDefaultFont: object = { font: null };

export function draw(s: Sheet): Promise<Buffer> {
  const doc = new PDFDocument({
    ...noDefaultFont, // the fonts come from withFonts()
    size: 'LETTER',
    margins: { top: MARGIN, bottom: MARGIN + 20, left: MARGIN, right: MARGIN }, // room for the footer
    bufferPages: true,
    info: { Title: winAnsi(`${s.title} - ${s.workspaceName}`), Author: winAnsi(s.workspaceName), Creator: 'Fieldwork', CreationDate: new Date(s.changedAt) },
  });
  withFonts(doc);
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const left = doc.page.margins.left;
  const width = doc.page.width - left - doc.page.margins.right;
  const bottom = () => doc.page.height - doc.page.margins.bottom;
  const t = winAnsi;

  // Heading: the logo (A125), the business, the document, its customer and dates.
  let top = MARGIN;
  if (s.logo?.length) {
    try {
      doc.image(Buffer.from(s.logo.buffer, s.logo.byteOffset, s.logo.byteLength), left, MARGIN, { fit: [LOGO_BOX[0], LOGO_BOX[1]] });
      top += LOGO_BOX[1] + 10;
    } catch {
      // Bytes pdfkit cannot read (checked when set, so only a damaged file): the document goes out without its logo.
    }
  }
  doc.font('Helvetica-Bold').fontSize(18).fillColor('black').text(t(s.workspaceName), left, top, { width });
  if (s.businessLines.length) doc.font('Helvetica').fontSize(9).text(t(s.businessLines.join('\n')), { width });
  doc.moveDown(0.4).fontSize(14).text(t(s.title), { width });
  if (s.name) doc.font('Helvetica').fontSize(11).text(t(s.name), { width });
  doc.moveDown(0.6).fontSize(10);
  if (s.contactName) doc.font('Helvetica-Bold').text('For: ', { continued: true }).font('Helvetica').text(t(s.contactName), { width });
  for (const [label, value] of s.facts) {
    if (value) doc.font('Helvetica-Bold').text(`${label}: `, { continued: true }).font('Helvetica').text(t(value), { width });
  }
  doc.moveDown(1);

  // Line items: Item | Qty | Unit price | Amount; a row never splits across pages
  // unless it is taller than a page (a very long description then flows on).
  const cols = { qty: 60, price: 90, amount: 90 };
  const itemWidth = width - cols.qty - cols.price - cols.amount - 10;
  const x = { qty: left + itemWidth + 10, price: left + itemWidth + 10 + cols.qty, amount: left + width - cols.amount };
  const header = () => {
    const y = doc.y;
    doc.font('Helvetica-Bold').fontSize(9).fillColor(GREY);
    cell(doc, 'ITEM', left, y, itemWidth);
    cell(doc, 'QTY', x.qty, y, cols.qty, 'right');
    cell(doc, 'UNIT PRICE', x.price, y, cols.price, 'right');
    cell(doc, 'AMOUNT', x.amount, y, cols.amount, 'right');
    const ruleY = y + 14;
    doc.moveTo(left, ruleY).lineTo(left + width, ruleY).lineWidth(0.7).strokeColor(RULE).stroke();
    doc.fillColor('black');
    doc.x = left;
    doc.y = ruleY + 6;
  };
  const newPage = () => {
    doc.addPage();
    doc.x = left;
    doc.y = doc.page.margins.top;
  };
  header();
  for (const line of s.view.lines) {
    const name = t(line.optional ? `${line.name} (optional)` : line.name);
    const description = line.description ? t(line.description) : '';
    doc.font('Helvetica-Bold').fontSize(10);
    let height = heightOf(doc, name, itemWidth);
    doc.font('Helvetica').fontSize(9);
    if (description) height += 2 + doc.heightOfString(description, { width: itemWidth });
    height += 8;
    const fresh = bottom() - doc.page.margins.top - 20;
    if (doc.y + height > bottom() && (height <= fresh || bottom() - doc.y < 40)) {
      newPage();
      header();
    }
    const y = doc.y;
    doc.font('Helvetica').fontSize(10).fillColor('black');
    cell(doc, t(line.quantity), x.qty, y, cols.qty, 'right');
    cell(doc, t(line.unitPrice), x.price, y, cols.price, 'right');
    cell(doc, t(line.total), x.amount, y, cols.amount, 'right');
    cell(doc.font('Helvetica-Bold').fontSize(10), name, left, y, itemWidth);
    if (description) doc.moveDown(0.1).font('Helvetica').fontSize(9).fillColor(GREY).text(description, left, doc.y, { width: itemWidth });
    doc.fillColor('black');
    doc.y += 8;
    doc.x = left;
  }
  if (!s.view.lines.length) doc.font('Helvetica').fontSize(10).fillColor(GREY).text('No line items.', left, doc.y, { width }).fillColor('black').moveDown(0.5);

  // Totals, right-aligned, kept together.
  const totals: [string, string, boolean][] = [
    ['Subtotal', s.view.subtotal, false],
    ['Discount', s.view.discount, false],
    [s.view.taxRate ? `Tax (${s.view.taxRate})` : 'Tax', s.view.tax, false],
    ['Total', s.view.total, true],
    ...s.after.map(([label, value]): [string, string, boolean] => [label, value, label === 'Balance due']),
  ].filter(([, value]) => value !== '') as [string, string, boolean][];
  const totalsHeight = totals.length * 16 + 12;
  if (doc.y + totalsHeight > bottom()) newPage();
  const ruleY = doc.y;
  doc.moveTo(left, ruleY).lineTo(left + width, ruleY).lineWidth(0.7).strokeColor(RULE).stroke();
  let y = ruleY + 8;
  const labelX = x.price - 80;
  for (const [label, value, strong] of totals) {
    doc.font(strong ? 'Helvetica-Bold' : 'Helvetica').fontSize(strong ? 11 : 10);
    cell(doc, t(label), labelX, y, cols.price + 80, 'right');
    cell(doc, t(value), x.amount, y, cols.amount, 'right');
    y += 16;
  }
  doc.x = left;
  doc.y = y + 10;

  // Free text wraps and flows onto new pages by itself.
  for (const [label, value] of s.notes) {
    if (!value.trim()) continue;
    if (doc.y + 40 > bottom()) newPage();
    doc.moveDown(0.5).font('Helvetica-Bold').fontSize(10).fillColor('black').text(label, left, doc.y, { width });
    doc.font('Helvetica').fontSize(10).text(t(value), left, doc.y, { width });
  }

  // Footer on every page: which document, page n of m. Drawn below the bottom
  // margin, so that margin is lifted while writing it (else pdfkit adds a page).
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    const keep = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc
      .font('Helvetica')
      .fontSize(8)
      .fillColor(GREY)
      .text(t(`${s.workspaceName.slice(0, 60)} - ${s.title} - Page ${i - range.start + 1} of ${range.count}`), left, doc.page.height - MARGIN, { width, align: 'center', lineBreak: false });
    doc.page.margins.bottom = keep;
  }
  doc.end();
  return done;
}

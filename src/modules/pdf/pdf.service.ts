import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { type DocumentView, documentView } from '../../domain/document-view.ts';
import { formatDate, formatMoney, workspaceCurrency } from '../../domain/format.ts';
import { zonedDate } from '../../domain/zoned-time.ts';
import { notFound } from '../../kernel/errors.ts';
import { getInvoiceDetail } from '../invoices/invoices.service.ts';
import { getQuoteDetail } from '../quotes/quotes.service.ts';
import { findWorkspace } from '../workspace/workspace.service.ts';

// E9: a quote or invoice as a PDF, drawn with pdfkit in its standard Helvetica
// (no font files; the text stays extractable). The document is read by its own
// single GET (one statement, 404 like the API's) beside the workspace row.
// pdfkit loads with the first PDF, as nodemailer with the first email.

export interface PdfFile {
  filename: string;
  pdf: Buffer;
}

type PDFKit = typeof import('pdfkit');
let pdfkit: Promise<PDFKit> | undefined;
const loadPdfkit = () => (pdfkit ??= import('pdfkit').then((m) => m.default));

/** What one page layout needs of a quote or an invoice. */
interface Sheet {
  title: string;
  /** The document's last change: the PDF's creation date, so one version always gives the same bytes. */
  changedAt: string;
  workspaceName: string;
  contactName: string;
  name: string | null;
  /** Label/value lines under the title: date, due date, valid until. */
  facts: [string, string][];
  view: DocumentView;
  /** After the total: amount paid and balance (invoices). */
  after: [string, string][];
  notes: [string, string][];
}

// The standard fonts encode WinAnsi (Latin-1 and a few more) only: anything else
// is written without its accents, or as "?", never as a wrong glyph.
const WIN_ANSI_EXTRA = '€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ';
const encodable = (c: string) => {
  const code = c.codePointAt(0) ?? 0;
  return c === '\n' || (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) || WIN_ANSI_EXTRA.includes(c);
};
export function winAnsi(text: string): string {
  let out = '';
  for (const c of text) {
    if (encodable(c)) out += c;
    else {
      const plain = c.normalize('NFKD').replace(/\p{M}/gu, '');
      out += [...plain].every(encodable) && plain ? plain : c === '\t' ? ' ' : '?';
    }
  }
  return out;
}

/** The symbol when the font has it ($, €, £, ¥), else the code (INR 12.00). */
const displayFor = (currency: string): 'symbol' | 'code' => ([...formatMoney(1, currency)].every(encodable) ? 'symbol' : 'code');

const contactName = (c: { first_name: string; last_name: string } | null) => (c ? `${c.first_name} ${c.last_name}`.trim() : '');

async function workspaceOf(db: Kysely<DB>, workspaceId: number) {
  const w = await findWorkspace(db, workspaceId);
  if (!w) throw notFound('Workspace');
  const currency = workspaceCurrency(w);
  return { w, currency, display: displayFor(currency) };
}

/** The document's date, or the day it was made in the workspace's zone. */
const dateOf = (date: string | null, createdAt: string, timezone: string | null) => formatDate(date ?? zonedDate(Date.parse(createdAt), timezone));

export async function quotePdf(db: Kysely<DB>, workspaceId: number, quoteId: number): Promise<PdfFile> {
  const [quote, { w, currency, display }] = await Promise.all([getQuoteDetail(db, workspaceId, quoteId), workspaceOf(db, workspaceId)]);
  const view = documentView(quote, currency, display);
  const pdf = await draw({
    title: `Quote #${quote.number}`,
    changedAt: quote.updated_at,
    workspaceName: w.name,
    contactName: contactName(quote.contact),
    name: quote.name,
    facts: [
      ['Date', dateOf(quote.date, quote.created_at, w.timezone)],
      ['Valid until', formatDate(quote.expire_on)],
    ],
    view,
    after: [['Deposit', view.deposit]],
    notes: [
      ['Message', quote.message ?? ''],
      ['Payment instructions', quote.payment_instructions ?? ''],
    ],
  });
  return { filename: `quote-${quote.number}.pdf`, pdf };
}

export async function invoicePdf(db: Kysely<DB>, workspaceId: number, invoiceId: number): Promise<PdfFile> {
  const [invoice, { w, currency, display }] = await Promise.all([getInvoiceDetail(db, workspaceId, invoiceId), workspaceOf(db, workspaceId)]);
  const money = (n: number) => formatMoney(n, currency, display);
  const pdf = await draw({
    title: `Invoice #${invoice.number}`,
    changedAt: invoice.updated_at,
    workspaceName: w.name,
    contactName: contactName(invoice.contact),
    name: invoice.name,
    facts: [
      ['Date', dateOf(invoice.date, invoice.created_at, w.timezone)],
      ['Due date', formatDate(invoice.due_date)],
    ],
    view: documentView(invoice, currency, display),
    after: [
      ['Amount paid', money(invoice.amount_paid)],
      ['Balance due', money(invoice.balance)],
    ],
    notes: [
      ['Message', invoice.message ?? ''],
      ['Payment instructions', invoice.payment_instructions ?? ''],
    ],
  });
  return { filename: `invoice-${invoice.number}.pdf`, pdf };
}

// ---- layout ------------------------------------------------------------------

const MARGIN = 50;
const GREY = '#555555';
const RULE = '#bbbbbb';

async function draw(s: Sheet): Promise<Buffer> {
  const PDFDocument = await loadPdfkit();
  const doc = new PDFDocument({
    size: 'LETTER',
    margins: { top: MARGIN, bottom: MARGIN + 20, left: MARGIN, right: MARGIN }, // room for the footer
    bufferPages: true,
    info: { Title: winAnsi(`${s.title} - ${s.workspaceName}`), Author: winAnsi(s.workspaceName), Creator: 'Fieldwork', CreationDate: new Date(s.changedAt) },
  });
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

  // Heading: the business, the document, its customer and dates.
  doc.font('Helvetica-Bold').fontSize(18).fillColor('black').text(t(s.workspaceName), left, MARGIN, { width });
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
    doc.text('ITEM', left, y, { width: itemWidth, lineBreak: false });
    doc.text('QTY', x.qty, y, { width: cols.qty, align: 'right', lineBreak: false });
    doc.text('UNIT PRICE', x.price, y, { width: cols.price, align: 'right', lineBreak: false });
    doc.text('AMOUNT', x.amount, y, { width: cols.amount, align: 'right', lineBreak: false });
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
    let height = doc.heightOfString(name, { width: itemWidth });
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
    doc.text(t(line.quantity), x.qty, y, { width: cols.qty, align: 'right', lineBreak: false });
    doc.text(t(line.unitPrice), x.price, y, { width: cols.price, align: 'right', lineBreak: false });
    doc.text(t(line.total), x.amount, y, { width: cols.amount, align: 'right', lineBreak: false });
    doc.font('Helvetica-Bold').fontSize(10).text(name, left, y, { width: itemWidth });
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
    doc.text(t(label), labelX, y, { width: cols.price + 80, align: 'right', lineBreak: false });
    doc.text(t(value), x.amount, y, { width: cols.amount, align: 'right', lineBreak: false });
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

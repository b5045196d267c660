import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { documentView } from '../../domain/document-view.ts';
import { businessLines, formatDate, formatMoney, workspaceCurrency } from '../../domain/format.ts';
import { zonedDate } from '../../domain/zoned-time.ts';
import { notFound } from '../../kernel/errors.ts';
import { getInvoiceDetail } from '../invoices/invoices.service.ts';
import { getQuoteDetail } from '../quotes/quotes.service.ts';
import { findWorkspace } from '../workspace/workspace.service.ts';
import { logoImage } from '../workspace/logo.ts';
import type { Storage } from '../../storage/storage.ts';
import { encodable } from './pdf-sheet.ts';
import { drawOffThread } from './pdf-pool.ts';

export { winAnsi } from './pdf-sheet.ts';

// E9: a quote or invoice as a PDF, drawn with pdfkit in its standard Helvetica
// (no font files; the text stays extractable). The document is read by its own
// single GET (one statement, 404 like the API's) beside the workspace row; the
// layout runs in a side thread (pdf-pool.ts), started with the first PDF.

export interface PdfFile {
  filename: string;
  pdf: Buffer;
}

/** The symbol when the font has it ($, €, £, ¥), else the code (INR 12.00). */
const displayFor = (currency: string): 'symbol' | 'code' => ([...formatMoney(1, currency)].every(encodable) ? 'symbol' : 'code');

const contactName = (c: { first_name: string; last_name: string } | null) => (c ? `${c.first_name} ${c.last_name}`.trim() : '');

/** Where the logo's bytes are read from (A125); without one, PDFs go without the logo. */
export type LogoStore = Pick<Storage, 'open'> | null;

async function workspaceOf(db: Kysely<DB>, workspaceId: number, store: LogoStore) {
  const w = await findWorkspace(db, workspaceId);
  if (!w) throw notFound('Workspace');
  const currency = workspaceCurrency(w);
  return { w, currency, display: displayFor(currency), logo: store ? await logoImage(store, w) : null };
}

/** The document's date, or the day it was made in the workspace's zone. */
const dateOf = (date: string | null, createdAt: string, timezone: string | null) => formatDate(date ?? zonedDate(Date.parse(createdAt), timezone));

export async function quotePdf(db: Kysely<DB>, workspaceId: number, quoteId: number, store: LogoStore = null): Promise<PdfFile> {
  const [quote, { w, currency, display, logo }] = await Promise.all([getQuoteDetail(db, workspaceId, quoteId), workspaceOf(db, workspaceId, store)]);
  const view = documentView(quote, currency, display);
  const pdf = await drawOffThread({
    title: `Quote #${quote.number}`,
    changedAt: quote.updated_at,
    workspaceName: w.name,
    logo,
    businessLines: businessLines(w),
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

export async function invoicePdf(db: Kysely<DB>, workspaceId: number, invoiceId: number, store: LogoStore = null): Promise<PdfFile> {
  const [invoice, { w, currency, display, logo }] = await Promise.all([getInvoiceDetail(db, workspaceId, invoiceId), workspaceOf(db, workspaceId, store)]);
  const money = (n: number) => formatMoney(n, currency, display);
  const pdf = await drawOffThread({
    title: `Invoice #${invoice.number}`,
    changedAt: invoice.updated_at,
    workspaceName: w.name,
    logo,
    businessLines: businessLines(w),
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


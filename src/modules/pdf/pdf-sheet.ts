// What a PDF's layout takes (pdf-layout.ts, in the worker threads) and the text it can
// write: kept apart from pdfkit so the API's thread never loads it.
import type { DocumentView } from '../../domain/document-view.ts';

/** What one page layout needs of a quote or an invoice. */
export interface Sheet {
  title: string;
  /** The document's last change: the PDF's creation date, so one version always gives the same bytes. */
  changedAt: string;
  workspaceName: string;
  /** A125: the workspace's logo (PNG or JPEG bytes; a worker receives them as a Uint8Array), or null. */
  logo?: Uint8Array | null;
  /** A64: address, phone, email, website, tax number (businessLines). */
  businessLines: string[];
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
export const encodable = (c: string) => {
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

import { formatMoney, formatQuantity } from './format.ts';
import { totalCents } from './money.ts';
import { computeTotals, type LineItem, type PricingTerms, lineTotalCents, type Unit } from './line-items.ts';

// A quote or invoice as its customer reads it, formatted once for every place
// that shows one (the E10 emails, the E9 PDFs): each line item's quantity, unit
// price and line total, and the D7 totals, in the workspace's currency.

export interface LineView {
  name: string;
  description: string | null;
  optional: boolean;
  quantity: string;
  unitPrice: string;
  total: string;
}

export interface DocumentView {
  lines: LineView[];
  subtotal: string;
  /** Empty when there is no discount. */
  discount: string;
  /** "8.25%", or empty when there is no tax. */
  taxRate: string;
  tax: string;
  total: string;
  /** A quote's deposit: "25% ($395.47)" or an amount; empty when none. The one rendering of emails, PDFs and the hub. */
  deposit: string;
}

export interface PricedDocument extends PricingTerms {
  line_items: LineItem[];
  total: number;
  deposit: number;
  deposit_unit: Unit;
}

export function documentView(doc: PricedDocument, currency: string, display: 'symbol' | 'code' = 'symbol'): DocumentView {
  const fmt = (amount: number) => formatMoney(amount, currency, display);
  const money = (cents: number) => fmt(cents / 100);
  const t = computeTotals(doc.line_items, doc);
  return {
    lines: doc.line_items.map((item) => ({
      name: item.name,
      description: item.description,
      optional: item.optional,
      quantity: formatQuantity(item.quantity),
      unitPrice: fmt(item.unitPrice),
      total: money(lineTotalCents(item)),
    })),
    subtotal: money(t.subtotal),
    discount: t.discount ? `-${money(t.discount)}` : '',
    taxRate: t.tax ? `${formatQuantity(doc.tax_rate)}%` : '',
    tax: t.tax ? money(t.tax) : '',
    // The stored total: D7 keeps a total the client set.
    total: fmt(doc.total),
    deposit: doc.deposit > 0 ? (doc.deposit_unit === '%' ? `${formatQuantity(doc.deposit)}% (${money(Math.round((totalCents(doc.total) * doc.deposit) / 100))})` : fmt(doc.deposit)) : '',
  };
}

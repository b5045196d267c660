// D7 totals with D25's rounding: pure (no Node, no schema library), so the web
// app's editor imports this very code and shows the totals the server stores.
import { ValidationError } from '../kernel/errors.ts';

/** Totals past this are refused: their cents must stay exact in a JS number. */
export const MAX_TOTAL = 1_000_000_000_000;

// ---- D7 totals, in exact integer cents --------------------------------------

interface Decimal {
  m: bigint; // value = m / 10^s
  s: number;
}

/** A JSON number as the decimal the client wrote (`19.99` is 1999/100, not its binary neighbour). */
function decimal(x: number): Decimal {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i.exec(String(x));
  if (!match) throw new RangeError(`not a finite number: ${x}`);
  const [, sign, int, frac = '', exp = '0'] = match;
  let m = BigInt(`${sign}${int}${frac}`);
  let s = frac.length - Number(exp);
  if (s < 0) {
    m *= 10n ** BigInt(-s);
    s = 0;
  }
  return { m, s };
}

const pow10 = (n: number) => 10n ** BigInt(n);

/** n / d rounded half away from zero (D25); d > 0. */
function roundDiv(n: bigint, d: bigint): bigint {
  const neg = n < 0n;
  const q = (2n * (neg ? -n : n) + d) / (2n * d);
  return neg ? -q : q;
}

export interface PricingTerms {
  discount: number;
  discount_unit: '%' | '$';
  tax_rate: number;
}
export interface TotalsItem {
  quantity: number;
  unitPrice: number;
  taxable: boolean;
  optional: boolean;
}
export interface Totals {
  /** All in integer cents. */
  subtotal: number;
  discount: number;
  tax: number;
  total: number;
}

/** One line's amount in cents: quantity x unit price, rounded half away from zero (D25). */
function lineCentsOf(item: Pick<TotalsItem, 'quantity' | 'unitPrice'>): bigint {
  const q = decimal(item.quantity);
  const p = decimal(item.unitPrice);
  return roundDiv(q.m * p.m * 100n, pow10(q.s + p.s));
}

/** The line total a customer reads beside an item (optional ones included), in cents. */
export const lineTotalCents = (item: Pick<TotalsItem, 'quantity' | 'unitPrice'>): number => Number(lineCentsOf(item));

/**
 * D7 with D25's rounding: each line to cents, then the discount, then the tax,
 * each half away from zero. Optional items count for nothing; a `$` discount
 * is capped at the subtotal; tax applies to the taxable share of the discounted
 * subtotal. Exact: BigInt cents over the decimals as written.
 */
export function computeTotals(items: readonly TotalsItem[], terms: PricingTerms): Totals {
  let subtotal = 0n;
  let taxable = 0n;
  for (const item of items) {
    if (item.optional) continue;
    const line = lineCentsOf(item);
    subtotal += line;
    if (item.taxable) taxable += line;
  }
  const d = decimal(terms.discount);
  let discount = terms.discount_unit === '%' ? roundDiv(subtotal * d.m, 100n * pow10(d.s)) : roundDiv(d.m * 100n, pow10(d.s));
  if (discount > subtotal) discount = subtotal;
  const discounted = subtotal - discount;
  const r = decimal(terms.tax_rate);
  const tax = subtotal === 0n ? 0n : roundDiv(discounted * taxable * r.m, subtotal * 100n * pow10(r.s));
  const total = discounted + tax;
  if (total > BigInt(MAX_TOTAL) * 100n) {
    throw new ValidationError([{ path: ['line_items'], message: `the total would exceed ${MAX_TOTAL}` }]);
  }
  return { subtotal: Number(subtotal), discount: Number(discount), tax: Number(tax), total: Number(total) };
}


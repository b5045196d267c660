import { randomUUID } from 'node:crypto';
import { type Static, Type } from 'typebox';
import { type Detail, ValidationError } from '../kernel/errors.ts';
import { Id, Nullable, Text, Uuid } from '../kernel/schemas.ts';
import { computeTotals, MAX_TOTAL } from './totals.ts';

export { computeTotals, depositCents, lineTotalCents, MAX_TOTAL, type PricingTerms, type Totals, type TotalsItem } from './totals.ts';

// Line items and the pricing every priced document shares (quotes, jobs,
// invoices, quote templates): one schema, one totals function (D7, D25), one
// tax-preset rule (D8).

export const MAX_LINE_ITEMS = 200;
export const MAX_QUANTITY = 1_000_000;
export const MAX_PRICE = 1_000_000_000;
export const Money = Type.Number({ minimum: 0, maximum: MAX_PRICE });
export const Percent = Type.Number({ minimum: 0, maximum: 100 });
export const UNITS = ['%', '$'] as const;
export const Unit = Type.Enum([...UNITS]);
export type Unit = (typeof UNITS)[number];

export const LineItemInput = Type.Object({
  /** Kept when the client sends back an item it read (stable ids across edits); otherwise assigned. */
  id: Type.Optional(Uuid),
  /** Known (a GET returns it), so an item sent back as read is not refused (E19); not stored from input. */
  _type: Type.Optional(Type.Literal('lineItem')),
  name: Type.String({ minLength: 1, maxLength: 255 }),
  description: Type.Optional(Nullable(Text(5000))),
  quantity: Type.Optional(Type.Number({ minimum: 0, maximum: MAX_QUANTITY })),
  unitPrice: Money,
  taxable: Type.Optional(Type.Boolean()),
  optional: Type.Optional(Type.Boolean()),
  /** E26: what the item costs the business per unit (job costing); never shown to the customer. Null or absent: none. */
  unit_cost: Type.Optional(Nullable(Money)),
});
export type LineItemInput = Static<typeof LineItemInput>;

export const LineItem = Type.Object({
  id: Type.String(),
  _type: Type.Literal('lineItem'),
  name: Type.String(),
  description: Nullable(Type.String()),
  quantity: Type.Number(),
  unitPrice: Type.Number(),
  taxable: Type.Boolean(),
  optional: Type.Boolean(),
  /** E26: present when set (F262); customer documents never show it. */
  unit_cost: Type.Optional(Type.Number()),
});
export type LineItem = Static<typeof LineItem>;

/**
 * Service-assigned UUIDs for embedded objects (line items, D10 expenses): an id
 * the client sent back is kept so ids stay stable across edits; a missing or
 * repeated one is replaced.
 */
export function assignIds<T extends { id?: string }>(items: T[]): (T & { id: string })[] {
  const seen = new Set<string>();
  return items.map((item) => {
    let id = item.id?.toLowerCase();
    if (!id || seen.has(id)) id = randomUUID();
    seen.add(id);
    return { ...item, id };
  });
}

/** `_type` assigned; quantity 1, taxable true, optional false by default (SPEC, D25). */
export function normalizeLineItems(items: LineItemInput[]): LineItem[] {
  return assignIds(items).map((item) => ({
    id: item.id,
    _type: 'lineItem',
    name: item.name,
    description: item.description ?? null,
    quantity: item.quantity ?? 1,
    unitPrice: item.unitPrice,
    taxable: item.taxable ?? true,
    optional: item.optional ?? false,
    // F262: only an item with a cost carries the key, so documents without costs read as before.
    ...(item.unit_cost !== undefined && item.unit_cost !== null ? { unit_cost: item.unit_cost } : {}),
  }));
}

/** The items of another document, as new items of their own (fresh ids). */
export const copyLineItems = (items: LineItem[]): LineItem[] => items.map((item) => ({ ...item, id: randomUUID() }));

// ---- the pricing fields of a priced document --------------------------------

/** Body fields (create and update) of quotes, jobs, invoices and templates. */
export const pricingInput = {
  line_items: Type.Optional(Type.Array(LineItemInput, { maxItems: MAX_LINE_ITEMS })),
  discount: Type.Optional(Money),
  discount_unit: Type.Optional(Unit),
  deposit: Type.Optional(Money),
  deposit_unit: Type.Optional(Unit),
  tax_rate: Type.Optional(Percent),
  tax_rate_id: Type.Optional(Nullable(Id)),
  total: Type.Optional(Type.Number({ minimum: 0, maximum: MAX_TOTAL })),
};
const PricingInputSchema = Type.Object(pricingInput);
export type PricingInput = Static<typeof PricingInputSchema>;

/** Response fields. */
export const pricingOutput = {
  line_items: Type.Array(LineItem),
  discount: Type.Number(),
  discount_unit: Unit,
  deposit: Type.Number(),
  deposit_unit: Unit,
  tax_rate: Type.Number(),
  tax_rate_id: Nullable(Id),
  total: Type.Number(),
};

export interface Pricing {
  line_items: LineItem[];
  discount: number;
  discount_unit: Unit;
  deposit: number;
  deposit_unit: Unit;
  tax_rate: number;
  tax_rate_id: number | null;
  total: number;
}

export const DEFAULT_PRICING: Readonly<Pricing> = {
  line_items: [],
  discount: 0,
  discount_unit: '%',
  deposit: 0,
  deposit_unit: '%',
  tax_rate: 0,
  tax_rate_id: null,
  total: 0,
};

export const PRICING_KEYS = Object.keys(DEFAULT_PRICING) as (keyof Pricing)[];

/** A body without its pricing fields (those go through resolvePricing). */
export function omitPricing<T extends object>(body: T): Omit<T, keyof Pricing> {
  const out: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const k of PRICING_KEYS) delete out[k];
  return out as Omit<T, keyof Pricing>;
}

const TOTAL_INPUTS = ['line_items', 'discount', 'discount_unit', 'tax_rate'] as const;

/** The pricing columns of a row, as stored (line items already parsed). */
export function pricingOf(row: Pricing): Pricing {
  const out = {} as Record<keyof Pricing, unknown>;
  for (const k of PRICING_KEYS) out[k] = row[k];
  return out as Pricing;
}

/**
 * The pricing after a write: `current` (null on create) with the body's fields
 * applied, the tax preset's rate (`presetRate`, when `tax_rate_id` names one) copied
 * (D8) and the total computed (D7) unless given.
 * Throws the D4 validation error, before anything is written.
 */
export function applyPricing(current: Pricing | null, input: PricingInput, presetRate: number | undefined): Pricing {
  const next: Pricing = { ...(current ?? DEFAULT_PRICING) };
  if (input.line_items !== undefined) next.line_items = normalizeLineItems(input.line_items);
  if (input.discount !== undefined) next.discount = input.discount;
  if (input.discount_unit !== undefined) next.discount_unit = input.discount_unit;
  if (input.deposit !== undefined) next.deposit = input.deposit;
  if (input.deposit_unit !== undefined) next.deposit_unit = input.deposit_unit;
  if (input.tax_rate !== undefined) next.tax_rate = input.tax_rate;
  if (input.tax_rate_id !== undefined) next.tax_rate_id = input.tax_rate_id;
  if (input.total !== undefined) next.total = input.total;

  let rateCopied = false;
  if (presetRate !== undefined && input.tax_rate === undefined) {
    next.tax_rate = presetRate; // D8
    rateCopied = true;
  }

  const details: Detail[] = [];
  if (next.discount_unit === '%' && next.discount > 100) details.push({ path: ['discount'], message: 'a percentage discount cannot exceed 100' });
  if (next.deposit_unit === '%' && next.deposit > 100) details.push({ path: ['deposit'], message: 'a percentage deposit cannot exceed 100' });
  if (details.length) throw new ValidationError(details);

  // D7: a supplied total is kept; otherwise recompute when an input of the total was written.
  const touched = current === null || rateCopied || TOTAL_INPUTS.some((k) => input[k] !== undefined);
  if (input.total === undefined && touched) next.total = computeTotals(next.line_items, next).total / 100;
  return next;
}

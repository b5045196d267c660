import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { ValidationError } from '../kernel/errors.ts';
import { computeTotals, normalizeLineItems, type PricingTerms, type TotalsItem } from './line-items.ts';

const item = (quantity: number, unitPrice: number, extra: Partial<TotalsItem> = {}): TotalsItem => ({
  quantity,
  unitPrice,
  taxable: true,
  optional: false,
  ...extra,
});
const terms = (t: Partial<PricingTerms> = {}): PricingTerms => ({ discount: 0, discount_unit: '%', tax_rate: 0, ...t });

// Decimals as clients write them: cents for prices, up to three places for quantities.
const price = fc.integer({ min: 0, max: 100_000_000 }).map((c) => c / 100);
const quantity = fc.integer({ min: 0, max: 1_000_000 }).map((n) => n / 1000);
const arbItem = fc.record({ quantity, unitPrice: price, taxable: fc.boolean(), optional: fc.boolean() });
const arbItems = fc.array(arbItem, { maxLength: 20 });
const percent = fc.integer({ min: 0, max: 10_000 }).map((n) => n / 100);
const arbTerms = fc.oneof(
  fc.record({ discount: percent, discount_unit: fc.constant('%' as const), tax_rate: percent }),
  fc.record({ discount: price, discount_unit: fc.constant('$' as const), tax_rate: percent }),
);

describe('D7 totals', () => {
  test('each line rounds half away from zero to cents before summing (D25)', () => {
    assert.equal(computeTotals([item(1.5, 19.99)], terms()).total, 2999); // 29.985 -> 29.99
    assert.equal(computeTotals([item(1, 0.005), item(1, 0.005)], terms()).total, 2); // 0.01 + 0.01, not round(0.01)
    assert.equal(computeTotals([item(3, 0.333)], terms()).total, 100); // 0.999 -> 1.00
    assert.equal(computeTotals([item(0.1, 0.1)], terms()).total, 1); // 0.01 exactly, no binary drift
  });

  test('discount: percent of the subtotal, or dollars capped at it; then tax on the taxable share', () => {
    // subtotal 100.00 (taxable 60, not 40); 10% off -> 90.00; taxable share 54.00; 8.875% -> 4.7925 -> 4.79
    const items = [item(2, 30), item(1, 40, { taxable: false })];
    assert.deepEqual(computeTotals(items, terms({ discount: 10, tax_rate: 8.875 })), { subtotal: 10000, discount: 1000, tax: 479, total: 9479 });
    assert.deepEqual(computeTotals(items, terms({ discount: 25.5, discount_unit: '$', tax_rate: 10 })), {
      subtotal: 10000,
      discount: 2550,
      tax: 447,
      total: 7897,
    });
    assert.deepEqual(computeTotals(items, terms({ discount: 500, discount_unit: '$', tax_rate: 10 })), { subtotal: 10000, discount: 10000, tax: 0, total: 0 });
    // 33.33% of 10.00 = 3.333 -> 3.33; 1/3 share... all taxable: 6.67 * 5% = 0.3335 -> 0.33
    assert.deepEqual(computeTotals([item(1, 10)], terms({ discount: 33.33, tax_rate: 5 })), { subtotal: 1000, discount: 333, tax: 33, total: 700 });
    // half a cent of tax rounds away from zero: 0.10 * 5% = 0.005 -> 0.01
    assert.equal(computeTotals([item(1, 0.1)], terms({ tax_rate: 5 })).tax, 1);
  });

  test('optional items count for nothing; no items is 0', () => {
    assert.equal(computeTotals([item(1, 10), item(5, 99, { optional: true })], terms({ tax_rate: 10 })).total, 1100);
    assert.equal(computeTotals([], terms({ discount: 10, tax_rate: 10 })).total, 0);
  });

  test('a total past the maximum is refused with a D4 detail, not rounded away', () => {
    const huge = Array.from({ length: 200 }, () => item(1_000_000, 1_000_000_000));
    assert.throws(
      () => computeTotals(huge, terms()),
      (err: unknown) => err instanceof ValidationError && err.details?.[0].path[0] === 'line_items',
    );
  });

  describe('invariants (fast-check)', () => {
    test('optional items never change the totals', () => {
      fc.assert(
        fc.property(arbItems, fc.array(arbItem, { maxLength: 5 }), arbTerms, fc.nat(), (items, extra, t, at) => {
          const optional = extra.map((e) => ({ ...e, optional: true }));
          const mixed = [...items];
          mixed.splice(at % (items.length + 1), 0, ...optional);
          assert.deepEqual(computeTotals(mixed, t), computeTotals(items, t));
        }),
      );
    });

    test('the order of the items is irrelevant', () => {
      fc.assert(
        fc.property(arbItems, arbTerms, fc.array(fc.nat()), (items, t, keys) => {
          const shuffled = items
            .map((it, i) => ({ it, k: keys[i] ?? i }))
            .sort((a, b) => a.k - b.k)
            .map((x) => x.it);
          assert.deepEqual(computeTotals(shuffled, t), computeTotals(items, t));
        }),
      );
    });

    test('whole cents; 0 <= discount <= subtotal; total >= 0; total = subtotal - discount + tax', () => {
      fc.assert(
        fc.property(arbItems, arbTerms, (items, t) => {
          const r = computeTotals(items, t);
          for (const v of Object.values(r)) assert.ok(Number.isSafeInteger(v) && v >= 0, `${v}`);
          assert.ok(r.discount <= r.subtotal);
          assert.equal(r.total, r.subtotal - r.discount + r.tax);
          // The API amount is cents / 100: it reads back as the same whole cents.
          assert.equal(Math.round((r.total / 100) * 100), r.total);
        }),
      );
    });

    test('a $ discount is capped at the subtotal: at or past it, the total is 0', () => {
      fc.assert(
        fc.property(arbItems, percent, (items, rate) => {
          const { subtotal } = computeTotals(items, terms());
          const r = computeTotals(items, terms({ discount: subtotal / 100 + 1, discount_unit: '$', tax_rate: rate }));
          assert.equal(r.discount, subtotal);
          assert.equal(r.total, 0);
        }),
      );
    });

    test('tax is at most the rate of the discounted subtotal, and 0 without taxable items', () => {
      fc.assert(
        fc.property(arbItems, arbTerms, (items, t) => {
          const r = computeTotals(items, t);
          assert.ok(r.tax <= Math.round(((r.subtotal - r.discount) * t.tax_rate) / 100) + 1);
          const untaxed = computeTotals(
            items.map((i) => ({ ...i, taxable: false })),
            t,
          );
          assert.equal(untaxed.tax, 0);
        }),
      );
    });

    test('with whole-cent prices and whole quantities, no discount or tax: exactly the sum of quantity x price', () => {
      fc.assert(
        fc.property(
          fc.array(fc.record({ q: fc.integer({ min: 0, max: 1000 }), c: fc.integer({ min: 0, max: 10_000_000 }), optional: fc.boolean() }), { maxLength: 20 }),
          (rows) => {
            const expected = rows.filter((r) => !r.optional).reduce((s, r) => s + r.q * r.c, 0);
            assert.equal(
              computeTotals(
                rows.map((r) => item(r.q, r.c / 100, { optional: r.optional })),
                terms(),
              ).total,
              expected,
            );
          },
        ),
      );
    });
  });
});

describe('line items', () => {
  test('service-assigned id and _type; quantity 1, taxable true, optional false, description null (SPEC, D25)', () => {
    const [a] = normalizeLineItems([{ name: 'Mow', unitPrice: 40 }]);
    assert.match(a.id, /^[0-9a-f-]{36}$/);
    assert.deepEqual(
      { ...a, id: 'x' },
      { id: 'x', _type: 'lineItem', name: 'Mow', description: null, quantity: 1, unitPrice: 40, taxable: true, optional: false },
    );
  });

  test('an id sent back is kept; a repeated one is replaced', () => {
    const id = '0b6c7f0e-8d1a-4f3e-9a51-6e9f2b1c0d11';
    const items = normalizeLineItems([
      { id, name: 'a', unitPrice: 1 },
      { id, name: 'b', unitPrice: 1 },
      { name: 'c', unitPrice: 1 },
    ]);
    assert.equal(items[0].id, id);
    assert.notEqual(items[1].id, id);
    assert.equal(new Set(items.map((i) => i.id)).size, 3);
  });
});

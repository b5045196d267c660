import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tableCodec } from '../src/db/codec.ts';

// The codec is how every row becomes its API record (and its webhook payload).
test('decode: JSON parsed, 0/1 as booleans, the table\'s omitted columns and a query\'s extra columns left out, nothing else touched', () => {
  type Api = { id: number; name: string; taxable: boolean; line_items: unknown; custom_fields: unknown };
  const codec = tableCodec<Api>()('services', { json: [], bool: ['taxable'], omit: ['workspace_id'] });
  const row = { id: 7, workspace_id: 3, name: 'Tap', taxable: 1, description: null, contact: '{"id":1}' };
  assert.deepEqual(codec.decode(row, new Set(['contact'])), { id: 7, name: 'Tap', taxable: true, description: null });
  assert.deepEqual(codec.decode({ ...row, taxable: 0 }), { id: 7, name: 'Tap', taxable: false, description: null, contact: '{"id":1}' });
  assert.deepEqual(row.workspace_id, 3, 'the row itself is not changed');

  const quotes = tableCodec<Api>()('quotes', { json: ['line_items', 'custom_fields'], omit: ['created_by'] });
  const decoded = quotes.decode({ id: 1, created_by: 'u-1', line_items: '[{"name":"A"}]', custom_fields: null, name: 'Q' });
  assert.deepEqual(decoded, { id: 1, line_items: [{ name: 'A' }], custom_fields: null, name: 'Q' });
  assert.deepEqual(Object.keys(decoded), ['id', 'line_items', 'custom_fields', 'name'], 'in the row\'s order');
});

// A row without any column to leave out is copied whole and converted on the copy.
test('decode of a row with no column to leave out: the same record, the row itself unchanged', () => {
  type Api = { id: number; name: string; taxable: boolean | null; line_items: unknown; custom_fields: unknown };
  const quotes = tableCodec<Api>()('quotes', { json: ['line_items', 'custom_fields'], omit: ['created_by'] });
  const row = { id: 2, line_items: '[{"name":"B"}]', custom_fields: null, name: 'Q', message: null };
  const decoded = quotes.decode(row);
  assert.deepEqual(decoded, { id: 2, line_items: [{ name: 'B' }], custom_fields: null, name: 'Q', message: null });
  assert.deepEqual(Object.keys(decoded), ['id', 'line_items', 'custom_fields', 'name', 'message'], "in the row's order");
  assert.equal(row.line_items, '[{"name":"B"}]', 'the row itself is not changed');
  assert.deepEqual(quotes.decode({ id: 3, name: 'R' }), { id: 3, name: 'R' }, 'a column the query did not select stays absent');

  const services = tableCodec<Api>()('services', { json: [], bool: ['taxable'], omit: ['workspace_id'] });
  const service = { id: 7, name: 'Tap', taxable: 1 };
  assert.deepEqual(services.decode(service), { id: 7, name: 'Tap', taxable: true });
  assert.equal(service.taxable, 1, 'the row itself is not changed');
  assert.deepEqual(services.decode({ id: 8, name: 'Pipe', taxable: 0 }), { id: 8, name: 'Pipe', taxable: false });
});

// Rows that leave columns out are decoded by a function compiled per column order (F199):
// each row is checked against the order it was compiled for, so rows of another
// statement (other columns, another order, a column more or less) decode as their own.
test('decode with columns left out: every column order of the same codec and extra decodes as its own, past the compiled ones too', () => {
  type Api = { id: number; name: string; taxable: boolean | null; line_items: unknown };
  // (No table has both kinds of column: the key lists are cast, the codec does not read the schema.)
  const codec = tableCodec<Api>()('quotes', { json: ['line_items'], bool: ['taxable' as never], omit: ['created_by'] });
  const extra = new Set(['contact']);
  const rows: Record<string, unknown>[] = [
    { id: 1, created_by: 'u', name: 'A', taxable: 1, line_items: '[1]', contact: '{}' },
    { name: 'B', id: 2, contact: null, taxable: 0, line_items: null, created_by: 'u' },
    { id: 3, name: 'C', taxable: null, contact: '{}' },
    { id: 4, name: 'D', taxable: 1, line_items: '[4]', contact: '{}', note: 'more' },
    { id: 5, created_by: 'u', name: 'E', taxable: 1, line_items: '[5]', contact: '{}' },
  ];
  // Ten more orders than are compiled: the rest take the loop, with the same result.
  for (let i = 0; i < 10; i++) rows.push({ [`c${i}`]: i, id: 10 + i, taxable: 0, contact: null });
  const expected = (r: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(r)
        .filter(([k]) => k !== 'created_by' && k !== 'contact')
        .map(([k, v]) => [k, k === 'line_items' ? (v === null ? null : JSON.parse(String(v))) : k === 'taxable' && v !== null ? Boolean(v) : v]),
    );
  for (let pass = 0; pass < 2; pass++) {
    for (const r of rows) {
      const decoded = codec.decode(r as never, extra) as Record<string, unknown>;
      assert.deepEqual(decoded, expected(r));
      assert.deepEqual(Object.keys(decoded), Object.keys(expected(r)), "in the row's order");
    }
  }
  // Without extra, a row holding an omitted column: its own compiled order.
  assert.deepEqual(codec.decode({ created_by: 'u', id: 9, taxable: 0 } as never), { id: 9, taxable: false });
  // A decoded object is the caller's: a second decode of the same row is a new object.
  assert.notEqual(codec.decode(rows[0] as never, extra), codec.decode(rows[0] as never, extra));
});

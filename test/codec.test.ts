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

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

// E17: packages/client/src/schema.d.ts is generated from the OpenAPI document;
// this fails when a route changed and `npm run client:generate` was not run.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { generateClientTypes, SCHEMA_FILE } from '../scripts/client-generate.ts';

test('the committed client types match the OpenAPI document (run npm run client:generate)', async () => {
  const committed = fs.readFileSync(SCHEMA_FILE, 'utf8');
  assert.ok(committed === (await generateClientTypes()), 'packages/client/src/schema.d.ts is stale: run `npm run client:generate`');
});

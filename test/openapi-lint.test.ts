// E16: the OpenAPI document tells all, and `redocly lint` (recommended rules) finds no error in it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { deriveOperation } from '../src/http/openapi.ts';
import { EVENTS } from '../src/outbox/emit.ts';
import { openApiDocument } from '../scripts/openapi-document.ts';

interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  'x-scopes'?: string[];
  requestBody?: { content: Record<string, { schema: { $ref?: string } }> };
  responses: Record<string, { $ref?: string }>;
}
interface Doc {
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, { post: Operation }>;
  components: { schemas: Record<string, { properties?: Record<string, unknown> }>; responses: Record<string, { content: Record<string, { schema: { $ref: string } }> }> };
}

const root = path.resolve(import.meta.dirname, '..');
const redocly = path.join(root, 'node_modules', '.bin', 'redocly');
let doc: Doc;
let dir: string;

before(async () => {
  doc = JSON.parse(JSON.stringify(await openApiDocument())) as Doc;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldwork-openapi-'));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const operations = () => Object.entries(doc.paths).flatMap(([p, ops]) => Object.entries(ops).map(([m, op]) => ({ key: `${m.toUpperCase()} ${p}`, op })));

describe('OpenAPI document (E16)', () => {
  test('redocly lint with the recommended rules reports no errors', async () => {
    const file = path.join(dir, 'openapi.json');
    fs.writeFileSync(file, JSON.stringify(doc));
    const out = await new Promise<string>((resolve) => {
      // Exits non-zero when it finds errors: the JSON report says which.
      execFile(redocly, ['lint', file, '--format=json', '--max-problems=1000'], { cwd: dir, maxBuffer: 32 * 1024 * 1024 }, (_err, stdout) => resolve(stdout));
    });
    const report = JSON.parse(out) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[] };
    const errors = report.problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
    assert.deepEqual(errors, []);
    assert.equal(report.totals.errors, 0);
    // The one warning left: info.license (the project has not chosen one).
    assert.deepEqual(report.problems.map((p) => p.ruleId), ['info-license']);
  });

  test('every operation has a unique operationId, a summary, a tag, its scope and its 4xx responses', () => {
    const ids = new Set<string>();
    for (const { key, op } of operations()) {
      assert.ok(op.operationId && /^[a-z][A-Za-z]+$/.test(op.operationId), key);
      assert.ok(!ids.has(op.operationId), `${key}: ${op.operationId} twice`);
      ids.add(op.operationId);
      assert.ok(op.summary, key);
      assert.ok(op.tags?.length, key);
      const fourxx = Object.keys(op.responses).filter((s) => s.startsWith('4'));
      assert.ok(fourxx.length > 0, key);
      for (const s of fourxx) assert.match(op.responses[s].$ref ?? '', /^#\/components\/responses\/\w+$/, `${key} ${s}`);
      if (op['x-scopes']) {
        for (const scope of op['x-scopes']) assert.ok(op.description?.includes(`\`${scope}\``), `${key}: scope in the description`);
        for (const s of ['401', '403', '429']) assert.ok(op.responses[s], `${key} ${s}`);
      }
    }
    for (const response of Object.values(doc.components.responses)) assert.equal(response.content['application/json'].schema.$ref, '#/components/schemas/Error');
    assert.deepEqual(Object.keys(doc.components.schemas.Error.properties ?? {}), ['success', 'error', 'details']);
  });

  test('scopes, ids and error responses of representative routes', () => {
    const get = doc.paths['/api/v1/contacts/{id}'].get;
    assert.equal(get.operationId, 'getContact');
    assert.deepEqual(get['x-scopes'], ['contacts:read']);
    assert.deepEqual(Object.keys(get.responses).sort(), ['200', '401', '403', '404', '429']);
    const create = doc.paths['/api/v1/contacts'].post;
    assert.equal(create.operationId, 'createContact');
    assert.deepEqual(Object.keys(create.responses).sort(), ['201', '400', '401', '403', '422', '429']); // D4: contacts answer 422
    assert.equal(create.requestBody?.content['application/json'].schema.$ref, '#/components/schemas/CreateContactBody');
    assert.ok(doc.paths['/api/v1/contacts/{id}'].delete.responses['409'], 'deleteContact 409');
    assert.equal(doc.paths['/api/v1/quotes/{id}/status'].put.operationId, 'updateQuoteStatus');
    assert.equal(doc.paths['/api/v1/quotes'].post.summary, 'Create a quote');
    assert.equal(doc.paths['/api/v1/invoices/{id}'].get.summary, 'Get an invoice');
    assert.equal(doc.paths['/api/v1/workspace'].get.operationId, 'getWorkspace');
    assert.equal(doc.paths['/api/v1/contacts/{id}/properties'].get.operationId, 'listContactProperties');
    assert.equal(doc.paths['/api/v1/uploads'].get['x-scopes'], undefined); // checked per parent by the service
    assert.match(doc.paths['/api/v1/uploads'].get.description ?? '', /parent/);
    // The wildcard download URLs cannot be described: they are left out.
    assert.deepEqual(Object.keys(doc.paths).filter((p) => p.includes('*')), []);
  });

  test('shared schemas are components', () => {
    const { schemas } = doc.components;
    for (const name of ['Contact', 'Quote', 'Invoice', 'Pagination', 'Deleted', 'ContactListItem', 'WebhookMeta']) assert.ok(schemas[name], name);
    const text = JSON.stringify(doc);
    assert.ok(text.includes('"#/components/schemas/Quote"'), 'Quote referenced');
    assert.ok(text.length < 450_000, `document is ${text.length} bytes`); // 616 kB with everything inlined
  });

  test('every webhook event is under webhooks with its delivery body', () => {
    assert.deepEqual(Object.keys(doc.webhooks).sort(), [...EVENTS].sort());
    const hook = doc.webhooks.new_contact.post;
    const ref = hook.requestBody?.content['application/json'].schema.$ref ?? '';
    const body = doc.components.schemas[ref.split('/').pop() ?? ''];
    assert.deepEqual(Object.keys(body.properties ?? {}), ['event', 'workspace_id', 'timestamp', 'data', 'meta']);
    assert.deepEqual(body.properties?.data, { $ref: '#/components/schemas/Contact' });
  });

  test('operationIds are derived from the method and the URL', () => {
    const cases: [string, string, string][] = [
      ['GET', '/api/v1/contacts', 'listContacts'],
      ['GET', '/api/v1/contacts/:id', 'getContact'],
      ['POST', '/api/v1/contacts', 'createContact'],
      ['PUT', '/api/v1/contacts/:id', 'updateContact'],
      ['DELETE', '/api/v1/contacts/:id', 'deleteContact'],
      ['PUT', '/api/v1/quotes/:id/status', 'updateQuoteStatus'],
      ['GET', '/api/v1/time-entries', 'listTimeEntries'],
      ['POST', '/api/v1/contacts/:id/properties', 'createContactProperty'],
      ['PATCH', '/api/v1/uploads/:id', 'updateUpload'],
      ['GET', '/api/v1/workspace', 'getWorkspace'],
    ];
    for (const [method, url, id] of cases) assert.equal(deriveOperation(method, url).operationId, id, `${method} ${url}`);
  });
});

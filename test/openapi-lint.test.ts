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
  responses: Record<string, { $ref?: string; headers?: Record<string, { $ref: string }> }>;
}
interface Doc {
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, { post: Operation }>;
  components: {
    schemas: Record<string, { properties?: Record<string, unknown> }>;
    responses: Record<string, { content: Record<string, { schema: { $ref: string } }>; headers?: Record<string, { $ref: string }> }>;
    headers: Record<string, { schema: { type: string } }>;
  };
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
      const fourxx = Object.keys(op.responses).filter((s) => s.startsWith('4') || s === '500');
      assert.ok(fourxx.length > 1, key);
      assert.ok(op.responses['500'], `${key} 500`);
      for (const s of fourxx) assert.match(op.responses[s].$ref ?? '', /^#\/components\/responses\/\w+$/, `${key} ${s}`);
      // Every operation names its scopes, `[]` when it needs none (F240).
      assert.ok(Array.isArray(op['x-scopes']), `${key}: x-scopes`);
      if (op['x-scopes'].length) {
        for (const scope of op['x-scopes']) assert.ok(op.description?.includes(`\`${scope}\``), `${key}: scope in the description`);
        for (const s of ['401', '403']) assert.ok(op.responses[s], `${key} ${s}`);
        if (key.includes(' /api/v1/')) assert.ok(op.responses['429'], `${key} 429`);
      }
    }
    for (const response of Object.values(doc.components.responses)) assert.equal(response.content['application/json'].schema.$ref, '#/components/schemas/Error');
    assert.deepEqual(Object.keys(doc.components.schemas.Error.properties ?? {}), ['success', 'error', 'details']);
  });

  test('scopes, ids and error responses of representative routes', () => {
    const get = doc.paths['/api/v1/contacts/{id}'].get;
    assert.equal(get.operationId, 'getContact');
    assert.deepEqual(get['x-scopes'], ['contacts:read']);
    assert.deepEqual(Object.keys(get.responses).sort(), ['200', '401', '403', '404', '429', '500']);
    const create = doc.paths['/api/v1/contacts'].post;
    assert.equal(create.operationId, 'createContact');
    assert.deepEqual(Object.keys(create.responses).sort(), ['201', '400', '401', '403', '422', '429', '500']); // D4: contacts answer 422
    assert.equal(create.requestBody?.content['application/json'].schema.$ref, '#/components/schemas/CreateContactBody');
    assert.ok(doc.paths['/api/v1/contacts/{id}'].delete.responses['409'], 'deleteContact 409');
    assert.equal(doc.paths['/api/v1/quotes/{id}/status'].put.operationId, 'updateQuoteStatus');
    assert.equal(doc.paths['/api/v1/quotes'].post.summary, 'Create a quote');
    assert.equal(doc.paths['/api/v1/invoices/{id}'].get.summary, 'Get an invoice');
    assert.equal(doc.paths['/api/v1/workspace'].get.operationId, 'getWorkspace');
    assert.equal(doc.paths['/api/v1/contacts/{id}/properties'].get.operationId, 'listContactProperties');
    // Uploads and comments: the parent's scope, checked by the service; every possible one listed (E16).
    const parents = ['contacts', 'requests', 'quotes', 'jobs', 'invoices', 'events', 'timesheets'];
    const perParent = operations().filter(({ key }) => / \/api\/v1\/(uploads|comments)/.test(key));
    assert.ok(perParent.length >= 9, String(perParent.length));
    for (const { key, op } of perParent) {
      const access = key.startsWith('GET ') ? 'read' : 'write';
      assert.deepEqual(op['x-scopes'], parents.map((p) => `${p}:${access}`), key);
      assert.match(op.description ?? '', /the parent's module decides/, key);
    }
    // Scopes outside a key's header: none for who-am-I, the form key's for the embedded form.
    assert.deepEqual(doc.paths['/api/v1/me'].get['x-scopes'], []);
    assert.deepEqual(doc.paths['/api/forms/embed-fields'].post['x-scopes'], ['forms:read']);
    assert.deepEqual(doc.paths['/api/forms/embed-request'].post['x-scopes'], ['forms:write']);
    // The wildcard download URLs cannot be described: they are left out.
    assert.deepEqual(Object.keys(doc.paths).filter((p) => p.includes('*')), []);
  });

  test('the rate-limit headers are declared once and on every answer under /api/v1 and /api/webhooks; 429 adds Retry-After', () => {
    const names = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];
    assert.deepEqual(Object.keys(doc.components.headers).sort(), ['IgnoredFields', 'RetryAfter', 'XRateLimitLimit', 'XRateLimitRemaining', 'XRateLimitReset']); // IgnoredFields: E19
    let checked = 0;
    for (const { key, op } of operations()) {
      if (!/ \/api\/(v1|webhooks)\//.test(key)) continue;
      for (const [status, response] of Object.entries(op.responses)) {
        const resolved = response.$ref ? doc.components.responses[response.$ref.split('/').pop() ?? ''] : response;
        assert.deepEqual(Object.keys(resolved.headers ?? {}).filter((h) => h.startsWith('X-')), names, `${key} ${status}`);
        for (const h of Object.values(resolved.headers ?? {})) assert.ok(doc.components.headers[h.$ref.split('/').pop() ?? ''], `${key} ${status}`);
        checked++;
      }
    }
    assert.ok(checked > 300, String(checked));
    assert.ok(doc.components.responses.TooManyRequests.headers?.['Retry-After']);
  });

  test('the embedded form\'s operations say the key is in the body, and list 401 and 429', () => {
    for (const [path, statuses] of [
      ['/api/forms/embed-fields', ['200', '400', '401', '403', '500']],
      ['/api/forms/embed-request', ['201', '400', '401', '403', '429', '500']],
    ] as const) {
      const op = doc.paths[path].post;
      assert.match(op.description ?? '', /`apiKey`/, path);
      assert.match(op.description ?? '', /401 `Invalid API key`/, path);
      assert.deepEqual(Object.keys(op.responses).sort(), statuses, path);
    }
    assert.match(doc.paths['/api/forms/embed-request'].post.description ?? '', /429/);
  });

  test('bounds: the form\'s idempotency_key (E11: 255) and the upload\'s module_id, like every other id', () => {
    const ref = doc.paths['/api/forms/embed-request'].post.requestBody?.content['application/json'].schema.$ref ?? '';
    const body = doc.components.schemas[ref.split('/').pop() ?? ''];
    assert.deepEqual(body.properties?.idempotency_key, {
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x20-\\x7e]+$',
      description: '1 to 255 printable ASCII characters; a repeat answers the first answer',
      type: 'string',
    });
    const form = doc.paths['/api/v1/uploads'].post.requestBody?.content['multipart/form-data'].schema as unknown as { properties: Record<string, { minimum?: number; maximum?: number }> };
    assert.deepEqual([form.properties.module_id.minimum, form.properties.module_id.maximum], [1, 2_147_483_647]);
  });

  test('every nullable enum carries its type, so generated clients can send null (contact title)', () => {
    const nullableEnums: { at: string; schema: { type?: unknown; enum: unknown[] } }[] = [];
    const walk = (v: unknown, at: string) => {
      if (Array.isArray(v)) {
        for (const [i, x] of v.entries()) walk(x, `${at}/${i}`);
      }
      else if (v && typeof v === 'object') {
        const o = v as { enum?: unknown[] };
        if (Array.isArray(o.enum) && o.enum.includes(null)) nullableEnums.push({ at, schema: o as { enum: unknown[] } });
        for (const [k, x] of Object.entries(v)) walk(x, `${at}/${k}`);
      }
    };
    walk(doc, '#');
    assert.ok(nullableEnums.some((e) => e.at.endsWith('/title')), 'contact title');
    for (const { at, schema } of nullableEnums) assert.deepEqual(schema.type, ['string', 'null'], at);
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

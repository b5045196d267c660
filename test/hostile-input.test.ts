import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { multipartBody, png } from './upload-fixtures.ts';
import { type Client, buildTestApp, client, keyFor, ownerSessionToken, type Res, seedWorkspace, type TestApp } from './helpers.ts';

// Hostile input (E18, D4, D5): text a database refuses, hostile nesting, ids in
// odd notations, prototype keys, cut-off uploads. Every answer is in the envelope,
// the same on SQLite and PostgreSQL, and nothing is written.

let t: TestApp;
let api: Client;
let token: string;
let formKey: string;
let contactId: number;
let quoteId: number;

const TABLES = ['contacts', 'properties', 'quotes', 'events', 'time_entries', 'timesheets', 'comments', 'requests', 'upload_links'] as const;
async function counts(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of TABLES) {
    const row = await t.db.selectFrom(table).select(t.db.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    out[table] = Number(row.n);
  }
  return out;
}

/** Runs `send`, asserts the envelope, the status, the error text and (when given) the first detail's path, and that nothing was written. */
async function refused(send: () => Promise<Res>, status: number, error: string, path?: (string | number)[]): Promise<Res> {
  const before = await counts();
  const res = await send();
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.success, false);
  assert.equal(res.body.error, error);
  if (path) assert.deepEqual(res.body.details?.[0]?.path, path);
  assert.deepEqual(await counts(), before, 'nothing written');
  return res;
}

const nested = (levels: number, open = '{"a":', close = '}') => `${open.repeat(levels)}1${close.repeat(levels)}`;

before(async () => {
  t = await buildTestApp();
  const ws = await seedWorkspace(t.db);
  // An owner's scopes, team and key management included, so every route is reached.
  token = await ownerSessionToken(t.db, ws.workspace.id);
  api = client(t.app, token);
  formKey = await keyFor(t.db, ws.workspace.id, 'embed_forms');
  contactId = (await api.post('/api/v1/contacts', { first_name: 'Ada', last_name: 'Lovelace' })).body.data.id;
  quoteId = (await api.post('/api/v1/quotes', { name: 'Q', contact_id: contactId })).body.data.id;
});
after(() => t.close());


type OpenApiDoc = { components?: { schemas?: Record<string, { properties?: object }> } };
type Operation = { requestBody?: { content?: Record<string, { schema?: { properties?: object; $ref?: string } }> } } | undefined;
/** The top-level JSON body fields of an operation, through a `$ref` to a component schema (E16). */
function bodyFields(doc: OpenApiDoc, op: Operation): string[] {
  const schema = op?.requestBody?.content?.['application/json']?.schema;
  const resolved = schema?.$ref ? doc.components?.schemas?.[schema.$ref.split('/').pop() ?? ''] : schema;
  return Object.keys(resolved?.properties ?? {});
}

describe('E18: U+0000 and lone surrogates are refused like any invalid field', () => {
  const NUL = 'a\u0000b';
  test('bodies: D4 status and text per endpoint, details naming the field path', async () => {
    await refused(() => api.post('/api/v1/contacts', { first_name: NUL, last_name: 'x' }), 422, 'Validation failed', ['first_name']);
    await refused(() => api.post('/api/v1/contacts', '{"first_name":"a\\ud800","last_name":"x"}'), 422, 'Validation failed', ['first_name']);
    await refused(() => api.post('/api/v1/contacts', '{"first_name":"a\\udc00b","last_name":"x"}'), 422, 'Validation failed', ['first_name']);
    await refused(() => api.post('/api/v1/contacts', { first_name: 'a', last_name: 'x', info: { notes: ['ok', NUL] } }), 422, 'Validation failed', ['info', 'notes', 1]);
    await refused(() => api.post('/api/v1/contacts', { first_name: 'a', last_name: 'x', custom_fields: { [NUL]: 1 } }), 422, 'Validation failed', ['custom_fields']);
    await refused(() => api.put(`/api/v1/contacts/${contactId}`, { last_name: NUL }), 422, 'Validation failed', ['last_name']);
    await refused(() => api.post(`/api/v1/contacts/${contactId}/properties`, { address: { street: NUL } }), 422, 'Validation failed', ['address', 'street']);
    await refused(
      () => api.post('/api/v1/quotes', { name: 'Q', line_items: [{ name: 'ok', unitPrice: 1 }, { name: NUL, unitPrice: 2 }] }),
      400,
      'Invalid request',
      ['line_items', 1, 'name'],
    );
    await refused(() => api.post('/api/v1/events', { start_date: '2030-01-01', end_date: '2030-01-01', name: NUL }), 400, 'Invalid request', ['name']);
    await refused(() => api.post('/api/v1/time-entries', { start_date: '2030-01-01', end_date: '2030-01-01', description: '\ud83d' }), 400, 'Invalid request', ['description']);
    await refused(() => api.post('/api/v1/comments', { module_type: 'quote', module_id: quoteId, comment: NUL }), 400, 'Invalid request', ['comment']);
    await refused(
      () => client(t.app).post('/api/forms/embed-request', { apiKey: formKey, formData: { firstName: NUL, lastName: 'Doe', email: 'jane@example.test', phone: '+1 555 123 4567', description: 'The boiler leaks.' } }),
      400,
      'Invalid request data',
      ['formData', 'firstName'],
    );
    // A well-formed surrogate pair (an emoji) is ordinary text.
    const emoji = await api.post('/api/v1/contacts', { first_name: '\ud83d\ude00', last_name: 'x' });
    assert.equal(emoji.status, 201);
    assert.equal(emoji.body.data.first_name, '😀');
  });

  test('query strings: 400 Invalid request naming the parameter; paths: 404', async () => {
    for (const url of ['/api/v1/contacts?search=a%00b', '/api/v1/quotes?search=%00%00', '/api/v1/events?search=%00', '/api/v1/properties?search=x%00']) {
      await refused(() => api.get(url), 400, 'Invalid request', ['search']);
    }
    await refused(() => api.get('/api/v1/uploads?module_type=contact&module_id=1&search=%00'), 400, 'Validation error', ['search']);
    await refused(() => api.get(`/api/v1/contacts/${contactId}%00`), 404, 'Contact not found');
  });

  test('multipart form fields of an upload', async () => {
    const { payload, contentType } = multipartBody([
      { name: 'module_type', value: 'contact' },
      { name: 'module_id', value: String(contactId) },
      { name: 'description', value: NUL },
      { name: 'file', filename: 'a.png', type: 'image/png', data: png(3, 2, 7) },
    ]);
    const send = async () => {
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/uploads', payload, headers: { authorization: `Bearer ${token}`, 'content-type': contentType } });
      return { status: res.statusCode, body: res.json(), headers: res.headers };
    };
    await refused(send, 400, 'Validation error', ['description']);
  });

  test('JSON nested deeper than 32 levels (arrays count) is refused; 32 is accepted', async () => {
    const body = (json: string) => `{"first_name":"a","last_name":"x","info":${json}}`;
    const deep = await refused(() => api.post('/api/v1/contacts', body(nested(5000))), 422, 'Validation failed');
    assert.equal(deep.body.details[0].path[0], 'info');
    await refused(() => api.post('/api/v1/contacts', body(nested(33, '[', ']'))), 422, 'Validation failed');
    await refused(() => api.post('/api/v1/contacts', body(nested(33, '[{"a":', '}]'))), 422, 'Validation failed');
    await refused(() => api.post('/api/v1/quotes', `{"name":"Q","custom_fields":${nested(5000, '[', ']')}}`), 400, 'Invalid request');
    await refused(() => api.post('/api/v1/requests', `{"name":"R","details":${nested(40)}}`), 400, 'Invalid request');
    const ok = await api.post('/api/v1/contacts', body(nested(32)));
    assert.equal(ok.status, 201);
    let depth = 0;
    for (let v = ok.body.data.info; typeof v === 'object'; v = v.a) depth++;
    assert.equal(depth, 32);
  });

  test('sweep: every JSON body field of every POST/PUT/PATCH route given "a\\u0000b" is 400, 404 or 422, never 500', async () => {
    const doc = (await api.get('/api/v1/openapi.json')).body;
    let tried = 0;
    for (const [path, ops] of Object.entries<Record<string, { requestBody?: { content?: Record<string, { schema?: { properties?: object } }> } }>>(doc.paths)) {
      for (const method of ['post', 'put', 'patch'] as const) {
        const fields = bodyFields(doc, ops[method]);
        const url = path.replace(/\{[^}]+\}/g, String(contactId));
        for (const field of fields) {
          const res = await client(t.app, token)[method](url, { [field]: NUL });
          tried++;
          // 401: POST /api/requests takes the internal key, unset here
          assert.ok([400, 401, 404, 422].includes(res.status), `${method} ${url} ${field}: ${res.status} ${JSON.stringify(res.body)}`);
          assert.equal(res.body.success, false);
        }
      }
    }
    assert.ok(tried > 100, `${tried} fields tried`);
  });
});

describe('D5: ids only as plain decimal integers', () => {
  test('path ids in another notation are not found, whatever ajv would coerce', async () => {
    for (const id of ['0x10', '%201', '1%20', '1e1', '+1', '01', '-1', '1.0', '0', '2147483648', '1'.repeat(4000)]) {
      await refused(() => api.get(`/api/v1/contacts/${id}`), 404, 'Contact not found');
      await refused(() => api.put(`/api/v1/quotes/${id}`, { name: 'x' }), 404, 'Quote not found');
    }
    assert.equal((await api.get(`/api/v1/contacts/${contactId}`)).status, 200);
  });

  test('query ids and numbers are decimal or 400', async () => {
    for (const q of ['contact_id=0x1', 'contact_id=1e0', 'contact_id=%201', 'contact_id=01', 'page=+1', 'per_page=1e1']) {
      await refused(() => api.get(`/api/v1/quotes?${q}`), 400, 'Invalid request', [q.split('=')[0]]);
    }
    const ok = await api.get(`/api/v1/quotes?contact_id=${contactId}&page=1&per_page=10`);
    assert.equal(ok.status, 200);
    assert.equal(ok.body.data.length, 1);
  });

  test('a body id of 2^31 is refused naming the field', async () => {
    const big = 2 ** 31;
    await refused(() => api.post('/api/v1/quotes', { name: 'Q', contact_id: big }), 400, 'Invalid request', ['contact_id']);
    await refused(() => api.post('/api/v1/comments', { module_type: 'quote', module_id: big, comment: 'x' }), 400, 'Invalid request', ['module_id']);
    await refused(() => api.post(`/api/v1/contacts/${contactId}/properties`, { property_id: big }), 422, 'Validation failed', ['property_id']);
    await refused(() => api.post('/api/v1/events', { start_date: '2030-01-01', end_date: '2030-01-01', job_id: big }), 400, 'Invalid request', ['job_id']);
  });

  test('sweep: every id-like body field set to 2^31 is never a 500', async () => {
    const doc = (await api.get('/api/v1/openapi.json')).body;
    let idFields = 0;
    for (const [path, ops] of Object.entries<Record<string, { requestBody?: { content?: Record<string, { schema?: { properties?: object } }> } }>>(doc.paths)) {
      for (const method of ['post', 'put', 'patch'] as const) {
        const fields = bodyFields(doc, ops[method]).filter((f) => /_id$|^id$/.test(f));
        const url = path.replace(/\{[^}]+\}/g, String(contactId));
        for (const field of fields) {
          const res = await client(t.app, token)[method](url, { [field]: 2 ** 31 });
          idFields++;
          assert.ok(res.status < 500, `${method} ${url} ${field}: ${res.status} ${JSON.stringify(res.body)}`);
        }
      }
    }
    assert.ok(idFields > 10, `${idFields} id fields tried`);
  });

  test('search: too long is 400 on every list endpoint; 200 characters is fine', async () => {
    const doc = (await api.get('/api/v1/openapi.json')).body;
    const lists = Object.entries<Record<string, { parameters?: { name: string }[] }>>(doc.paths).filter(
      ([path, ops]) => !path.includes('{') && ops.get?.parameters?.some((p) => p.name === 'search'),
    );
    assert.ok(lists.length >= 10);
    for (const [path] of lists) {
      const long = await api.get(`${path}?search=${'x'.repeat(300)}`);
      assert.equal(long.status, 400, `${path}: ${JSON.stringify(long.body)}`);
      assert.equal(long.body.success, false);
      const fine = await api.get(`${path}?search=${encodeURIComponent('%_\\\'"é😀'.repeat(20))}`);
      assert.ok(fine.status === 200 || fine.status === 400, `${path}: ${fine.status} ${JSON.stringify(fine.body)}`);
      if (fine.status === 400) assert.ok(!fine.body.details.some((d: { path: string[] }) => d.path[0] === 'search'), path);
    }
  });
});

describe('D5: errors Fastify raises itself are in the envelope', () => {
  test('a path that is not valid percent-encoding names no resource: the route\'s 404 when it has one, else 404 Not found', async () => {
    for (const [url, error] of [
      ['/api/v1/contacts/%ff%fe', 'Contact not found'],
      ['/api/v1/quotes/%E0%A4%A', 'Quote not found'],
      ['/api/v1/quotes/%', 'Quote not found'],
      ['/api/v1/%ff', 'Not found'],
      ['/api/v1/%ff/1?x=%ED%A0%80', 'Not found'],
    ]) {
      const res = await api.get(url);
      assert.equal(res.status, 404, url);
      assert.deepEqual(res.body, { success: false, error }, url);
      assert.ok(res.headers['x-request-id']);
    }
  });
});

describe('E18 in queries and paths: escapes that are not UTF-8 (a lone surrogate)', () => {
  const SURROGATE = '%ED%A0%80'; // U+D800 written as UTF-8 would be: no valid UTF-8 holds it
  test('every list with search answers 400 naming `search`, not an empty page', async () => {
    const doc = (await api.get('/api/v1/openapi.json')).body;
    const lists = Object.entries<Record<string, { parameters?: { name: string }[] }>>(doc.paths).filter(
      ([path, ops]) => !path.includes('{') && ops.get?.parameters?.some((p) => p.name === 'search'),
    );
    assert.ok(lists.length >= 10);
    for (const [path] of lists) {
      // The list's own wording (D4: uploads say `Validation error`), as for an overlong search.
      const { error } = (await api.get(`${path}?search=${'x'.repeat(300)}`)).body;
      const parent = ['/api/v1/uploads', '/api/v1/comments'].includes(path) ? `module_type=contact&module_id=${contactId}&` : '';
      for (const value of [`a${SURROGATE}b`, '%ED%B0%80', 'a%FFb', '%C0%80', `a%F0%9F%98b`]) {
        const res = await refused(() => api.get(`${path}?${parent}search=${value}`), 400, error);
        assert.ok(res.body.details.some((d: { path: string[] }) => d.path[0] === 'search'), `${path} ${value}: ${JSON.stringify(res.body)}`);
      }
      // Valid escapes, a literal percent sign and a stray `%` still search.
      for (const value of [encodeURIComponent('é😀'), '%25', '100%', '%zz', 'a+b']) {
        const res = await api.get(`${path}?${parent}search=${value}`);
        assert.ok(res.status === 200 || !res.body.details?.some((d: { path: string[] }) => d.path[0] === 'search'), `${path} ${value}: ${JSON.stringify(res.body)}`);
      }
    }
    const found = await api.get(`/api/v1/contacts?search=${encodeURIComponent('Lovelace')}&search=x`);
    assert.equal(found.status, 400, 'a repeated scalar is still refused');
    assert.equal((await api.get(`/api/v1/contacts?search=Love+lace`)).body.data.length, 0);
    assert.equal((await api.get(`/api/v1/contacts?search=Love%6Cace`)).body.data.length, 1);
    await refused(() => api.get(`/api/v1/comments?module_type=contact&module_id=${contactId}&sort_by=${SURROGATE}`), 400, 'Invalid request', ['sort_by']);
  });

  test('every resource\'s path id answers its own 404, like an id that does not exist', async () => {
    const doc = (await api.get('/api/v1/openapi.json')).body;
    const single = Object.keys(doc.paths).filter((path) => /^\/api\/v1\/[\w-]+\/\{id\}$/.test(path) && doc.paths[path].get);
    assert.ok(single.length >= 12, String(single.length));
    for (const path of single) {
      const absent = await api.get(path.replace('{id}', '999999999'));
      assert.equal(absent.status, 404, path);
      assert.match(absent.body.error, /^\w[\w ]* not found$/, path);
      for (const id of [SURROGATE, `1${SURROGATE}`, '%FF', '%C0%80']) {
        const res = await api.get(path.replace('{id}', id));
        assert.deepEqual([res.status, res.body], [404, absent.body], `${path} ${id}`);
      }
    }
    await refused(() => api.put(`/api/v1/contacts/${SURROGATE}`, { last_name: 'x' }), 404, 'Contact not found');
    await refused(() => api.delete(`/api/v1/contacts/${SURROGATE}`), 404, 'Contact not found');
  });
});

describe('prototype keys (D5: unknown fields are dropped)', () => {
  test('__proto__ and constructor keys are dropped, not an Invalid JSON body, and pollute nothing', async () => {
    const res = await api.post(
      '/api/v1/contacts',
      '{"first_name":"P","last_name":"Q","__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":2}},"info":{"__proto__":{"polluted":3},"constructor":{"prototype":{"polluted":4}},"keep":true},"custom_fields":{"__proto__":{"x":1}}}',
    );
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(res.body.data.info, { keep: true });
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.hasOwn(Object.prototype, 'polluted'), false);
    const read = await api.get(`/api/v1/contacts/${res.body.data.id}`);
    assert.deepEqual(read.body.data.info, { keep: true });
  });

  test('a comment whose module_type is an object holding __proto__ answers at once', async () => {
    for (const moduleType of ['{"__proto__":{"quote":1}}', '{"__proto__":{"toString":"x"}}', '"__proto__"', '"constructor"', '"toString"']) {
      await refused(() => api.post('/api/v1/comments', `{"module_type":${moduleType},"module_id":${quoteId},"comment":"x"}`), 400, 'Invalid request', ['module_type']);
    }
    await refused(() => api.get(`/api/v1/comments?module_type=__proto__&module_id=${quoteId}`), 400, 'Invalid request', ['module_type']);
  });
});

describe('uploads: a multipart body cut off before its closing boundary', () => {
  const form = () =>
    multipartBody([
      { name: 'module_type', value: 'contact' },
      { name: 'module_id', value: String(contactId) },
      { name: 'file', filename: 'cut.png', type: 'image/png', data: png(40, 30, 3) },
    ]);
  const send = async (payload: Buffer, contentType: string) => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/uploads', payload, headers: { authorization: `Bearer ${token}`, 'content-type': contentType } });
    return { status: res.statusCode, body: res.json(), headers: res.headers };
  };

  test('the stream ends early: 400 at once, wherever it is cut', async () => {
    const { payload, contentType } = form();
    for (const cut of [10, 80, Math.floor(payload.length / 2), payload.length - 40, payload.length - 4]) {
      const started = Date.now();
      await refused(() => send(payload.subarray(0, cut), contentType), 400, 'Validation error');
      assert.ok(Date.now() - started < 5000, `cut at ${cut}`);
    }
    // Only the trailing CRLF after the closing delimiter missing: complete.
    assert.equal((await send(payload.subarray(0, payload.length - 2), contentType)).status, 201);
  });

  test('RFC 2046: a boundary longer than 70 characters, or none, is 400 in the envelope (not the parser\'s 500)', async () => {
    const withBoundary = (boundary: string, quoted = false) => {
      const { payload, contentType } = form();
      const old = /boundary=(.*)$/.exec(contentType)![1];
      const body = Buffer.from(payload.toString('latin1').split(old).join(boundary), 'latin1');
      return send(body, `multipart/form-data; boundary=${quoted ? `"${boundary}"` : boundary}`);
    };
    for (const boundary of ['b'.repeat(2000), 'b'.repeat(257), 'b'.repeat(71)]) {
      const res = await refused(() => withBoundary(boundary), 400, 'Validation error');
      assert.match(res.body.details[0].message, /boundary must be 1 to 70 characters/);
    }
    await refused(() => send(form().payload, 'multipart/form-data'), 400, 'Validation error');
    await refused(() => send(form().payload, 'multipart/form-data; boundary=""'), 400, 'Validation error');
    assert.equal((await withBoundary('b'.repeat(70))).status, 201);
    assert.equal((await withBoundary(`${'q'.repeat(60)} (x)'=+`, true)).status, 201);
  });

  test('the client stops sending: 400 after the idle timeout, over a real socket', async () => {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = new URL(address);
    const { payload, contentType } = form();
    const head = [
      'POST /api/v1/uploads HTTP/1.1',
      'Host: 127.0.0.1',
      `Authorization: Bearer ${token}`,
      `Content-Type: ${contentType}`,
      `Content-Length: ${payload.length}`,
      '',
      '',
    ].join('\r\n');
    const before = await counts();
    const started = Date.now();
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(Buffer.concat([Buffer.from(head), payload.subarray(0, payload.length / 2)])));
      let got = '';
      socket.on('data', (d) => {
        got += d.toString();
        if (got.includes('\r\n\r\n') && got.includes('}')) {
          socket.destroy();
          resolve(got);
        }
      });
      socket.on('error', reject);
      socket.setTimeout(25_000, () => reject(new Error('no answer in 25 s')));
    });
    const waited = Date.now() - started;
    assert.match(answer, /^HTTP\/1\.1 400/);
    assert.deepEqual(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).error, 'Validation error');
    assert.ok(waited >= 9000 && waited < 20_000, `${waited} ms`);
    assert.deepEqual(await counts(), before);
  });
});

describe('dates: years 0000 to 9999 everywhere a date is taken', () => {
  test('events, time entries and quotes accept years 0000 to 0099 as written, and both databases sort them', async () => {
    const early = await api.post('/api/v1/events', { start_date: '0050-03-01', end_date: '0050-03-02', name: 'Roman' });
    assert.equal(early.status, 201, JSON.stringify(early.body));
    assert.equal(early.body.data.start_date, '0050-03-01');
    const zero = await api.post('/api/v1/events', { start_date: '0000-02-29', end_date: '0000-02-29', name: 'Leap zero' });
    assert.equal(zero.status, 201, JSON.stringify(zero.body));
    const late = await api.post('/api/v1/events', { start_date: '9999-12-31', end_date: '9999-12-31', name: 'Last' });
    assert.equal(late.status, 201);
    await refused(() => api.post('/api/v1/events', { start_date: '0099-02-29', end_date: '0099-02-29' }), 400, 'Invalid request', ['start_date']);
    await refused(() => api.post('/api/v1/events', { start_date: '0050-03-02', end_date: '0050-03-01' }), 400, 'Invalid request', ['end_date']);
    const sorted = (await api.get('/api/v1/events?sort_by=start_date&sort_direction=asc&per_page=100')).body.data.map((e: { start_date: string }) => e.start_date);
    assert.deepEqual(sorted.slice(0, 2), ['0000-02-29', '0050-03-01']);
    assert.equal(sorted.at(-1), '9999-12-31');

    // 0001-01-01 was a Monday (proleptic Gregorian); read as 1901-01-03, a Thursday, the week would differ.
    const entry = await api.post('/api/v1/time-entries', { start_date: '0001-01-03', end_date: '0001-01-04', start_time: '22:00', end_time: '02:30' });
    assert.equal(entry.status, 201, JSON.stringify(entry.body));
    assert.equal(entry.body.data.total_time, 4.5);
    const sheet = (await api.get(`/api/v1/timesheets/${entry.body.data.timesheet_id}`)).body.data;
    assert.equal(sheet.start_date, '0001-01-01');
    assert.equal(sheet.end_date, '0001-01-07');

    const quote = await api.post('/api/v1/quotes', { name: 'Old', date: '0000-02-29', expire_on: '0099-12-31' });
    assert.equal(quote.status, 201);
    assert.equal(quote.body.data.date, '0000-02-29');
  });

  test('a time entry whose week would leave the years 0000 to 9999 is refused, nothing written', async () => {
    // 0000-01-01 is a Saturday: its Monday week begins in year -1.
    await refused(() => api.post('/api/v1/time-entries', { start_date: '0000-01-01', end_date: '0000-01-01' }), 400, 'Invalid request', ['start_date']);
    await refused(() => api.post('/api/v1/time-entries', { start_date: '9999-12-31', end_date: '9999-12-31' }), 400, 'Invalid request', ['start_date']);
  });
});

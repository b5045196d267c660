// Issue 25: the package as someone outside this repository installs it: `npm pack`ed,
// unpacked into a project's node_modules, used from a plain ESM script under plain
// Node (no tsx) and type-checked by a `tsc --strict` project. Its JavaScript imports
// nothing from `node:`, so browsers and bundlers load it too.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { timestampedSignature } from '../../../src/outbox/http-post.ts';
import { buildTestApp, seedWorkspace, type TestApp } from '../../../test/helpers.ts';
import { hmacSha256Hex } from '../src/hmac.ts';

const CHROMIUM = '/usr/bin/chromium';
const pkg = path.resolve(import.meta.dirname, '..');
const root = path.resolve(pkg, '../..');

// Every step outside this process has a time limit, so a step that hangs fails by its
// name instead of holding the whole run.
const STEP_MS = 120_000;

function run(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, env: { ...process.env, ...env }, timeout: STEP_MS, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('@fieldwork/client outside this repository', () => {
  let t: TestApp;
  let token: string;
  let baseUrl: string;
  let project: string;
  before(async () => {
    t = await buildTestApp();
    token = (await seedWorkspace(t.db)).token;
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;

    // npm pack packs what `files` names: dist, which `prepare` built when the repository
    // was installed. Its scripts are not run again here, so dist is not rebuilt under the
    // feet of test files running beside this one.
    project = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldwork-consumer-'));
    const pack = await run('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', project], pkg);
    assert.equal(pack.code, 0, pack.stderr);
    const packed = pack.stdout.trim().split('\n').pop()!;
    const installed = path.join(project, 'node_modules', '@fieldwork', 'client');
    fs.mkdirSync(installed, { recursive: true });
    const untar = await run('tar', ['-xzf', path.join(project, packed), '-C', installed, '--strip-components=1'], project);
    assert.equal(untar.code, 0, untar.stderr);
    // Its one dependency, as npm would install it.
    fs.symlinkSync(path.join(root, 'node_modules', 'openapi-fetch'), path.join(project, 'node_modules', 'openapi-fetch'));
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  }, { timeout: 3 * STEP_MS });
  after(async () => {
    await t.close();
    fs.rmSync(project, { recursive: true, force: true });
  });

  test('the tarball holds the built JavaScript and declarations, and no TypeScript sources', () => {
    const files = fs.readdirSync(path.join(project, 'node_modules', '@fieldwork', 'client', 'dist')).sort();
    assert.deepEqual(files, ['hmac.d.ts', 'hmac.js', 'index.d.ts', 'index.js', 'schema.d.ts', 'webhooks.d.ts', 'webhooks.js']);
    assert.ok(!fs.existsSync(path.join(project, 'node_modules', '@fieldwork', 'client', 'src')));
  });

  test('its JavaScript imports nothing from node: (browsers, Vite)', () => {
    const dist = path.join(project, 'node_modules', '@fieldwork', 'client', 'dist');
    for (const f of fs.readdirSync(dist).filter((n) => n.endsWith('.js'))) {
      const imports = [...fs.readFileSync(path.join(dist, f), 'utf8').matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)].map((m) => m[1]);
      for (const spec of imports) assert.ok(spec.startsWith('./') || spec === 'openapi-fetch', `${f} imports ${spec}`);
    }
  });

  test('a plain ESM script under plain node: writes, ignored fields to onIgnoredFields (or a console warning), webhook verification', async () => {
    const secret = 'whsec_test';
    const now = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({ event: 'new_contact', data: { id: 1 } });
    fs.writeFileSync(
      path.join(project, 'script.mjs'),
      `import { createClient, verifyWebhook } from '@fieldwork/client';
const ignored = [];
const api = createClient({ baseUrl: process.env.BASE, apiKey: process.env.KEY, onIgnoredFields: (fields, req) => ignored.push({ fields, method: req.method }) });
const made = await api.POST('/api/v1/contacts', { body: { first_name: 'Ada', last_name: 'Lovelace', emial: 'ada@example.test' } });
const quiet = createClient({ baseUrl: process.env.BASE, apiKey: process.env.KEY });
await quiet.POST('/api/v1/contacts', { body: { first_name: 'Bo', last_name: 'Default', phon: '1' } });
const verified = verifyWebhook(process.env.BODY, { 'fieldwork-signature': process.env.SIG }, '${secret}', { now: ${now} });
const forged = verifyWebhook(process.env.BODY + ' ', { 'fieldwork-signature': process.env.SIG }, '${secret}', { now: ${now} });
console.log(JSON.stringify({ status: made.response.status, email: made.data.data.email, ignored, verified, forged }));
`,
    );
    // Plain node: no --import tsx, and NODE_OPTIONS cleared in case the test runner set one.
    const r = await run(process.execPath, ['script.mjs'], project, { BASE: baseUrl, KEY: token, BODY: body, SIG: timestampedSignature(secret, now, body), NODE_OPTIONS: '' });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { status: 201, email: null, ignored: [{ fields: ['emial'], method: 'POST' }], verified: true, forged: false });
    assert.match(r.stderr, /Fieldwork ignored a field of POST http:\/\/127\.0\.0\.1:\d+\/api\/v1\/contacts: phon/);
  });

  test('a tsc --strict consumer type-checks against the declarations, and a wrong body is a type error', async () => {
    const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    fs.writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', noEmit: true, skipLibCheck: false, types: [] }, files: ['use.ts'] }),
    );
    const good = `import { createClient, verifyWebhook, type components } from '@fieldwork/client';
const api = createClient({ baseUrl: 'http://localhost:3000', apiKey: 'wk_1.x', onIgnoredFields: (fields: string[]) => void fields });
export async function run(): Promise<string | null | undefined> {
  const { data } = await api.GET('/api/v1/contacts/{id}', { params: { path: { id: 1 } } });
  const contact: components['schemas']['Contact'] | undefined = data?.data;
  for await (const page of api.paginate('/api/v1/contacts')) void page.pagination.total_pages;
  void verifyWebhook('{}', {}, 'secret');
  return contact?.email;
}
`;
    fs.writeFileSync(path.join(project, 'use.ts'), good);
    const ok = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], project);
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);

    fs.writeFileSync(path.join(project, 'use.ts'), `${good}export const bad = api.POST('/api/v1/contacts', { body: { first_name: 1, last_name: 'X' } });\n`);
    const wrong = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], project);
    assert.notEqual(wrong.code, 0);
    assert.match(wrong.stdout, /use\.ts\(10,.*error TS2322/);
  });

  test('in a browser (chromium): the package loads as ES modules, writes through the API, reports ignored fields and verifies a signature', { skip: fs.existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed`, timeout: 3 * STEP_MS }, async () => {
    const secret = 'whsec_browser';
    const now = Math.floor(Date.now() / 1000);
    const body = '{"event":"new_contact"}';
    const page = `<!doctype html><script type="importmap">{"imports": {"@fieldwork/client": "/node_modules/@fieldwork/client/dist/index.js", "openapi-fetch": "/node_modules/openapi-fetch/dist/index.mjs"}}</script>
<script type="module">
import { createClient, verifyWebhook } from '@fieldwork/client';
const ignored = [];
const api = createClient({ baseUrl: location.origin, apiKey: ${JSON.stringify(token)}, onIgnoredFields: (fields) => ignored.push(...fields) });
const made = await api.POST('/api/v1/contacts', { body: { first_name: 'Bea', last_name: 'Browser', emial: 'b@example.test' } });
const verified = verifyWebhook(${JSON.stringify(body)}, { 'Fieldwork-Signature': ${JSON.stringify(timestampedSignature(secret, now, body))} }, ${JSON.stringify(secret)}, { now: ${now} });
window.result = { status: made.response.status, ignored, verified };
</script>`;
    // One origin for the page, the package files and (proxied) the API, as an app served beside the API has.
    const server = http.createServer(async (req, res) => {
      if (req.url === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(page);
      if (req.url!.startsWith('/api/')) {
        const chunks: Buffer[] = [];
        for await (const c of req) chunks.push(c as Buffer);
        const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => ['authorization', 'content-type', 'idempotency-key'].includes(k))) as Record<string, string>;
        const answer = await fetch(`${baseUrl}${req.url}`, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
        const out: Record<string, string> = { 'content-type': answer.headers.get('content-type') ?? 'application/json' };
        const ignored = answer.headers.get('fieldwork-ignored-fields');
        if (ignored) out['fieldwork-ignored-fields'] = ignored;
        return res.writeHead(answer.status, out).end(Buffer.from(await answer.arrayBuffer()));
      }
      const file = path.join(project, path.normalize(req.url!));
      if (!file.startsWith(project) || !fs.existsSync(file)) return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(fs.readFileSync(fs.realpathSync(file)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { chromium } = await import('playwright-core');
    // A browser server, not a plain launch: its process can be killed, so a browser that
    // stops answering ends with this test instead of keeping the file alive.
    const browserServer = await chromium.launchServer({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'], timeout: STEP_MS });
    try {
      const browser = await chromium.connect(browserServer.wsEndpoint(), { timeout: STEP_MS });
      const tab = await browser.newPage();
      tab.setDefaultTimeout(20_000);
      const errors: string[] = [];
      tab.on('pageerror', (e) => errors.push(e.message));
      await tab.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      await tab.waitForFunction(() => 'result' in window).catch(() => assert.fail(`no result: ${errors.join('; ')}`));
      assert.deepEqual(await tab.evaluate(() => (window as unknown as { result: unknown }).result), { status: 201, ignored: ['emial'], verified: true });
    } finally {
      await browserServer.kill();
      server.close();
    }
  });

  test('the HMAC the package computes by itself matches node:crypto', () => {
    for (let n = 0; n < 200; n++) {
      const key = randomBytes(n % 150);
      const data = randomBytes(n * 13);
      assert.equal(hmacSha256Hex(key, data), createHmac('sha256', key).update(data).digest('hex'));
    }
  });
});

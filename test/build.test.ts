import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { seedWorkspace, testDatabase } from './helpers.ts';
import { waitFor } from './webhook-receiver.ts';

// Issue 25: `npm start` used to delete dist/ and rebuild it at every start, so two
// processes started from one checkout deleted files under each other. Now a build runs
// only when the sources changed, into a fresh directory that `dist` is switched to.
// Each test works in a checkout of its own (src, scripts, bin copied; node_modules linked).

const root = path.resolve(import.meta.dirname, '..');

function checkout(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldwork-checkout-'));
  for (const part of ['src', 'scripts', 'bin', 'package.json']) fs.cpSync(path.join(root, part), path.join(dir, part), { recursive: true });
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

interface Started {
  child: ChildProcess;
  out: string;
  address: Promise<string>;
}

/** What `npm start` runs: the build, then the server from dist/. */
function start(dir: string, url: string, env: Record<string, string> = {}): Started {
  const child = spawn('sh', ['-c', 'node scripts/build.mjs && exec node dist/src/main.js'], {
    cwd: dir,
    env: { ...process.env, DATABASE_URL: url, PORT: '0', HOST: '127.0.0.1', WORKER: 'off', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const s: Started = { child, out: '', address: Promise.resolve('') };
  child.stdout!.on('data', (c: Buffer) => {
    s.out += c;
  });
  child.stderr!.on('data', (c: Buffer) => {
    s.out += c;
  });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  s.address = waitFor('the server', () => exited || /listening on http/.test(s.out), 60_000).then(() => {
    const m = /listening on (http:\/\/[\d.:]+)/.exec(s.out);
    if (!m) throw new Error(`did not start:\n${s.out}`);
    return m[1];
  });
  return s;
}

function cli(dir: string, url: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(dir, 'bin', 'fieldwork.js'), ...args], { cwd: dir, env: { ...process.env, DATABASE_URL: url } }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

const builds = (dir: string) => fs.readdirSync(path.join(dir, 'dist.builds')).filter((n) => !n.startsWith('.'));
const current = (dir: string) => fs.readlinkSync(path.join(dir, 'dist'));

describe('build once, shared by processes started from one checkout', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>;
  let token: string;
  let workspaceId: number;
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  before(async () => {
    db = await testDatabase();
    const ws = await seedWorkspace(db.database.db);
    token = ws.token;
    workspaceId = ws.workspace.id;
  });
  after(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await db.drop();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  test('two servers and a CLI command started at once from a fresh checkout all come up, on one build; an unchanged start builds nothing; a changed source builds beside the running one', async () => {
    const dir = checkout();
    dirs.push(dir);
    const [a, b] = [start(dir, db.url), start(dir, db.url)];
    children.push(a.child, b.child);
    const [addrA, addrB, listed] = await Promise.all([a.address, b.address, cli(dir, db.url, ['key', 'list', '--workspace', String(workspaceId), '--json'])]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(JSON.parse(listed.stdout).keys.length, 1);
    for (const addr of [addrA, addrB]) {
      const res = await fetch(`${addr}/api/v1/contacts`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(res.status, 200);
    }
    assert.equal(builds(dir).length, 1, 'one build for one set of sources');
    const first = current(dir);
    const stamp = fs.statSync(path.join(dir, first, '.complete')).mtimeMs;

    // Unchanged sources: the next start and command reuse the build.
    const again = await cli(dir, db.url, ['key', 'list', '--workspace', String(workspaceId)]);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(current(dir), first);
    assert.equal(fs.statSync(path.join(dir, first, '.complete')).mtimeMs, stamp);

    // A changed source: a new build beside the old one, which the running servers still use.
    fs.appendFileSync(path.join(dir, 'src', 'config.ts'), '\n// changed\n');
    const c = start(dir, db.url);
    children.push(c.child);
    await c.address;
    assert.notEqual(current(dir), first);
    assert.equal(builds(dir).length, 2);
    assert.ok(fs.existsSync(path.join(dir, first, 'src', 'main.js')), 'the running build is still there');
    assert.match(fs.readFileSync(path.join(dir, 'dist', 'src', 'config.js'), 'utf8'), /./);
    for (const addr of [addrA, addrB]) assert.equal((await fetch(`${addr}/api/v1/contacts`, { headers: { authorization: `Bearer ${token}` } })).status, 200);
  });

  test('the CLI builds dist/ when missing and runs from its JavaScript, and a dist/ left by an older build (a plain directory) is replaced', async () => {
    const dir = checkout();
    dirs.push(dir);
    fs.mkdirSync(path.join(dir, 'dist', 'src'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'dist', 'src', 'stale.js'), '');
    const r = await cli(dir, db.url, ['key', 'list', '--workspace', String(workspaceId), '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).keys.length, 1);
    assert.ok(fs.lstatSync(path.join(dir, 'dist')).isSymbolicLink());
    assert.ok(fs.existsSync(path.join(dir, 'dist', 'cli.js')));
    assert.ok(!fs.existsSync(path.join(dir, 'dist', 'src', 'stale.js')));
  });

  test('F192: the server is one bundled file, and what its modules read beside themselves (hub templates, assets, the PDF thread, the metrics listener) is found', async () => {
    const dir = checkout();
    dirs.push(dir);
    // METRICS_PORT=0: the ready line names the port the metrics listener got.
    const s = start(dir, db.url, { METRICS_PORT: '0' });
    children.push(s.child);
    const base = await s.address;
    const metricsUrl = /metrics on (http:\/\/[\d.:]+\/metrics)/.exec(s.out)?.[1];
    assert.ok(metricsUrl, s.out);

    // The entry holds the app itself: its only relative imports are chunks esbuild wrote beside it.
    const entry = fs.readFileSync(path.join(dir, 'dist', 'src', 'main.js'), 'utf8');
    assert.match(entry, /async function buildApp\(/);
    const relative = [...entry.matchAll(/(?:from|import\()\s*"(\.[^"]+)"/g)].map((m) => m[1]);
    for (const file of relative) assert.match(file, /^\.\/[\w-]+-[A-Z0-9]{8}\.js$/, `${file} is a chunk, not a transpiled module`);

    const api = (method: string, url: string, body?: unknown) =>
      fetch(`${base}${url}`, { method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
    for (const [url, type] of [
      ['/favicon.ico', 'image/x-icon'],
      ['/embed/form.js', 'javascript'],
      ['/hub/hub.css', 'text/css'],
      ['/docs/', 'text/html'],
      ['/api/v1/openapi.json', 'application/json'],
    ]) {
      const res = await fetch(`${base}${url}`);
      assert.equal(res.status, 200, url);
      assert.match(res.headers.get('content-type') ?? '', new RegExp(type), url);
    }
    // Swagger UI's own files, which its package finds through __dirname (kept outside the bundle).
    const docs = await (await fetch(`${base}/docs/`)).text();
    const asset = /(?:src|href)="\.?\/?([^"]+\.js)"/.exec(docs)?.[1];
    assert.ok(asset, docs.slice(0, 300));
    assert.equal((await fetch(new URL(asset, `${base}/docs/`))).status, 200, asset);

    const contact = (await (await api('POST', '/api/v1/contacts', { first_name: 'Bundle', last_name: 'Check' })).json()).data;
    const invoice = (await (await api('POST', '/api/v1/invoices', { contact_id: contact.id, name: 'Bundled', line_items: [{ name: 'Boiler service', unitPrice: 80 }] })).json()).data;
    assert.equal((await api('PUT', `/api/v1/invoices/${invoice.id}/status`, { status: 'sent' })).status, 200);
    const pdf = await api('GET', `/api/v1/invoices/${invoice.id}/pdf`);
    assert.equal(pdf.status, 200);
    assert.equal(Buffer.from(await pdf.arrayBuffer()).subarray(0, 5).toString(), '%PDF-');
    // The hub renders its templates (src/modules/hub/views, read through import.meta.url).
    const link = (await (await api('POST', `/api/v1/contacts/${contact.id}/hub-link`)).json()).data.url as string;
    const hub = await fetch(`${base}${new URL(link).pathname}/invoices/${invoice.id}`);
    assert.equal(hub.status, 200);
    assert.match(await hub.text(), /Boiler service/);
    // The metrics listener, loaded only with METRICS_PORT (a chunk of its own, with prom-client).
    const metrics = await fetch(metricsUrl);
    assert.equal(metrics.status, 200);
    assert.match(await metrics.text(), /http_requests_total|process_cpu/);
    // On SQLite the writes above started the checkpoints' task in a side thread (F200,
    // F201), both scripts in dist/; either not found there would end it with this line.
    if (db.database.dialect === 'sqlite') {
      await new Promise((r) => setTimeout(r, 500));
      assert.doesNotMatch(s.out, /SQLite checkpoints:/);
    }
  });

  test('a simple command spends well under the 1.5 s of CPU it took when tsx compiled the TypeScript at each run', async () => {
    // CPU time, not wall time; still, CPU time itself grows on a crowded 2-core machine
    // (0.17 s quiet, 0.55 s at a load average of 15), so this guards against a return
    // of the per-run compile (1.5 s) and the 0.5 s target is measured in bench/RESULTS.md.
    const report = "data:text/javascript,process.on('exit',()=>process.stderr.write('cpu '+JSON.stringify(process.cpuUsage())+'\\n'))";
    const runs: number[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(process.execPath, ['--import', report, path.join(root, 'bin', 'fieldwork.js'), 'key', 'list', '--workspace', String(workspaceId)], { cwd: root, env: { ...process.env, DATABASE_URL: db.url } }, (err, stdout, stderr) =>
          resolve({ code: err ? 1 : 0, stdout, stderr }),
        );
      });
      assert.equal(r.code, 0, r.stderr);
      const m = /cpu (\{.*\})/.exec(r.stderr);
      assert.ok(m, r.stderr);
      const { user, system } = JSON.parse(m[1]) as { user: number; system: number };
      runs.push((user + system) / 1e6);
    }
    const best = Math.min(...runs);
    assert.ok(best < 1, `CPU seconds per run: ${runs.join(', ')}`);
  });
});

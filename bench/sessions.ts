// A1: what a session costs next to a key, in process (inject, one request at a
// time), on SQLite or BENCH_DATABASE_URL: GET /api/v1/contacts/:id with a key and
// with a session cookie, a session write (with its CSRF token), and sign-in (one
// scrypt hash). Run: npx tsx bench/sessions.ts
import { performance } from 'node:perf_hooks';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { mintSetupLink } from '../src/modules/accounts/accounts.service.ts';
import { testDatabase, seedWorkspace } from '../test/helpers.ts';

const N = Number(process.env.BENCH_N ?? 2000);
const { database, drop } = await testDatabase();
const config = loadConfig({ PUBLIC_URL: 'http://fieldwork.test', API_RATE_LIMIT: '1000000/1m' });
const app = await buildApp({ config, database, logger: false });
await app.ready();
const ws = await seedWorkspace(database.db);
const password = 'correct horse battery';
const { url } = await mintSetupLink(database.db, ws.workspace.id, ws.owner.user_id, config.publicUrl);
const json = { 'content-type': 'application/json' };
await app.inject({ method: 'POST', url: '/api/auth/setup', headers: json, payload: { token: url.split('/').pop(), first_name: 'B', last_name: 'Ench', password } });
const signIn = await app.inject({ method: 'POST', url: '/api/auth/sign-in', headers: json, payload: { email: ws.owner.email, password } });
const cookie = `fieldwork_session=${/fieldwork_session=([^;]+)/.exec(String(signIn.headers['set-cookie']))![1]}`;
const csrf = signIn.json().data.csrf_token as string;
const contact = await app.inject({ method: 'POST', url: '/api/v1/contacts', headers: { ...json, authorization: `Bearer ${ws.token}` }, payload: { first_name: 'Ada', last_name: 'Bench' } });
const id = contact.json().data.id as number;

async function time(name: string, n: number, run: () => Promise<{ statusCode: number }>) {
  for (let i = 0; i < Math.min(50, n); i++) await run(); // warm up
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const r = await run();
    if (r.statusCode >= 300) throw new Error(`${name}: ${r.statusCode}`);
  }
  const ms = (performance.now() - t0) / n;
  console.log(`| ${name} | ${n} | ${ms.toFixed(3)} | ${Math.round(1000 / ms)} |`);
}

console.log(`\n${database.dialect}, in process, one request at a time\n`);
console.log('| request | n | ms each | req/s |\n|---|---:|---:|---:|');
await time('GET /api/v1/contacts/:id, key', N, () => app.inject({ method: 'GET', url: `/api/v1/contacts/${id}`, headers: { authorization: `Bearer ${ws.token}` } }));
await time('GET /api/v1/contacts/:id, session', N, () => app.inject({ method: 'GET', url: `/api/v1/contacts/${id}`, headers: { cookie } }));
await time('PUT /api/v1/contacts/:id, key', N / 4, () => app.inject({ method: 'PUT', url: `/api/v1/contacts/${id}`, headers: { ...json, authorization: `Bearer ${ws.token}` }, payload: { first_name: 'Ada' } }));
await time('PUT /api/v1/contacts/:id, session + CSRF', N / 4, () => app.inject({ method: 'PUT', url: `/api/v1/contacts/${id}`, headers: { ...json, cookie, 'x-csrf-token': csrf }, payload: { first_name: 'Ada' } }));
await time('POST /api/auth/sign-in', 40, () => app.inject({ method: 'POST', url: '/api/auth/sign-in', headers: json, payload: { email: ws.owner.email, password } }));
await app.close();
await drop();

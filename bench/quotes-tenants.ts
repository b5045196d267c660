// Quotes created per second into one workspace and spread over 50 (docs/scaling.md):
// in-process (inject), 10 requests in flight, SECONDS per run.
//   DATABASE_URL=sqlite:/tmp/q.db npx tsx bench/quotes-tenants.ts [SECONDS]
import fs from 'node:fs';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createDb } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { createKey } from '../src/modules/keys/keys.service.ts';
import { createWorkspace } from '../src/modules/workspace/workspace.service.ts';

const SECONDS = Number(process.argv[2] ?? 5);
const url = process.env.DATABASE_URL ?? 'sqlite:/tmp/fieldwork-quotes-bench.db';
if (url.startsWith('sqlite:')) fs.rmSync(url.slice(7), { force: true });
const database = createDb(url);
await migrate(database);
const app = await buildApp({ config: loadConfig({ DATABASE_URL: url, API_RATE_LIMIT: '1000000/1m' }), database, logger: false });
await app.ready();
const tenants: { token: string; contact: number }[] = [];
for (let i = 0; i < 50; i++) {
  const { workspace } = await createWorkspace(database.db, { name: `T${i}`, currency: 'usd', owner: { email: `o${i}@t.test`, first_name: 'O', last_name: 'T' } });
  const { token } = await createKey(database.db, { workspaceId: workspace.id, type: 'general' });
  const c = await app.inject({ method: 'POST', url: '/api/v1/contacts', headers: { authorization: `Bearer ${token}` }, payload: { first_name: 'C', last_name: 'T' } });
  tenants.push({ token, contact: c.json().data.id });
}
async function run(workspaces: number): Promise<number> {
  let n = 0;
  const until = Date.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: 10 }, async (_, lane) => {
      for (let i = lane; Date.now() < until; i += 10) {
        const t = tenants[i % workspaces];
        const res = await app.inject({ method: 'POST', url: '/api/v1/quotes', headers: { authorization: `Bearer ${t.token}` }, payload: { contact_id: t.contact, name: 'Q' } });
        if (res.statusCode !== 201) throw new Error(res.body);
        n++;
      }
    }),
  );
  return n / SECONDS;
}
console.log(`${database.dialect}: 1 workspace ${(await run(1)).toFixed(0)} quotes/s; 50 workspaces ${(await run(50)).toFixed(0)} quotes/s`);
await app.close();
await database.close();

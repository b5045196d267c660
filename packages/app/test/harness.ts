// The browser-test harness of Fieldwork Office: the production build served by
// the real server (buildApp with the built app, listening on loopback) on a fresh
// database, people made through the services the CLI uses and set up through
// their setup links, one headless Chromium per test file, axe-core and the 375 px
// sideways-scroll check. scripts/test.ts builds the app once before the runs.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildApp } from '../../../src/app.ts';
import { type Config, loadConfig } from '../../../src/config.ts';
import type { Database } from '../../../src/db/database.ts';
import type { DB } from '../../../src/db/schema.ts';
import { mintSetupLink } from '../../../src/modules/accounts/accounts.service.ts';
import { createKey } from '../../../src/modules/keys/keys.service.ts';
import { addUser, type Role } from '../../../src/modules/users/users.service.ts';
import { createWorkspace } from '../../../src/modules/workspace/workspace.service.ts';
import { backgroundTasks } from '../../../src/modules/background.ts';
import { Worker } from '../../../src/outbox/worker.ts';
import { testDatabase } from '../../../test/helpers.ts';
import { type SmtpBehaviour, type SmtpReceiver, startSmtpReceiver } from '../../../test/smtp-receiver.ts';

export const CHROMIUM = '/usr/bin/chromium';
const root = path.resolve(import.meta.dirname, '../../..');
export const APP_DIR = path.join(root, 'dist-app');
const AXE = path.join(root, 'node_modules/axe-core/axe.min.js');
/** A reason to skip browser tests on this machine, or false. */
export const skipBrowser: string | false = !fs.existsSync(CHROMIUM)
  ? `${CHROMIUM} is not installed (apt-get install -y chromium)`
  : !fs.existsSync(path.join(APP_DIR, 'index.html'))
    ? 'the app is not built (node scripts/build-app.mjs)'
    : false;

export const PASSWORD = 'correct horse battery';

export interface Person {
  email: string;
  password: string;
  userId: string;
  workspaceId: number;
  role: Role;
  firstName: string;
  lastName: string;
}

export interface Harness {
  app: FastifyInstance;
  db: Kysely<DB>;
  database: Database;
  config: Config;
  /** `http://127.0.0.1:<port>`, also the server's PUBLIC_URL. */
  origin: string;
  browser: Browser;
  /** With `{mail: true}`: the SMTP server on loopback the worker delivers to. */
  smtp: SmtpReceiver | null;
  /** A workspace with its owner set up (password PASSWORD) and a General key. */
  workspace(name?: string): Promise<{ id: number; owner: Person; token: string }>;
  /** A member of `workspaceId` with `role`, set up with PASSWORD unless `setUp` is false. */
  person(workspaceId: number, role: Role, opts?: { setUp?: boolean; email?: string }): Promise<Person>;
  /** A setup link's path under /app for a member (as `fieldwork user link` mints). */
  setupPath(workspaceId: number, userId: string): Promise<string>;
  /** A JSON call with a key, for seeding: `(await h.call(token, 'POST', '/api/v1/contacts', {...})).data`. */
  call(token: string, method: 'GET' | 'POST' | 'PUT', url: string, body?: object): Promise<{ status: number; data: any }>;
  /** A new browser context and page, `width` px wide (default 1280). */
  page(width?: number): Promise<{ context: BrowserContext; page: Page }>;
  /** Signs in through the sign-in page and waits for the page after it. */
  signIn(page: Page, person: Pick<Person, 'email' | 'password'>, path?: string): Promise<void>;
  close(): Promise<void>;
}

let seq = 0;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export async function startHarness(opts: { env?: Record<string, string>; mail?: boolean; smtp?: SmtpBehaviour; worker?: boolean } = {}): Promise<Harness> {
  const { database, drop } = await testDatabase();
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const smtp = opts.mail ? await startSmtpReceiver(opts.smtp) : null;
  // The auth routes compare Origin with PUBLIC_URL: the server must know its address before it is built.
  const config = loadConfig({ PUBLIC_URL: origin, ...(smtp ? { SMTP_URL: smtp.url } : {}), ...opts.env });
  const app = await buildApp({ config, database, logger: false, appDir: APP_DIR });
  await app.listen({ host: '127.0.0.1', port });
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  const db = database.db;
  // The worker runs with `mail` (it delivers) or `worker` (imports and exports, E28/E29).
  const worker = smtp || opts.worker ? new Worker({ db, dialect: database.dialect, config, pollMs: 20, tasks: backgroundTasks(db, config) }) : null;
  worker?.start();

  async function setUp(workspaceId: number, userId: string, email: string, firstName: string, lastName: string): Promise<void> {
    const link = await mintSetupLink(db, workspaceId, userId, origin);
    const token = link.url.split('/').pop();
    const res = await app.inject({ method: 'POST', url: '/api/auth/setup', payload: { token, first_name: firstName, last_name: lastName, password: PASSWORD } });
    assert.equal(res.statusCode, 200, `setup of ${email}: ${res.body}`);
  }

  const harness: Harness = {
    app,
    db,
    database,
    config,
    origin,
    browser,
    smtp,
    async workspace(name = `Greenleaf ${++seq}`) {
      const n = ++seq;
      const email = `owner${n}@example.test`;
      const { workspace, owner } = await createWorkspace(db, { name, currency: 'usd', owner: { email, first_name: 'Olive', last_name: 'Owner' } });
      await setUp(workspace.id, owner.user_id, email, 'Olive', 'Owner');
      const key = await createKey(db, { workspaceId: workspace.id, type: 'general' });
      return {
        id: workspace.id,
        token: key.token,
        owner: { email, password: PASSWORD, userId: owner.user_id, workspaceId: workspace.id, role: 'owner', firstName: 'Olive', lastName: 'Owner' },
      };
    },
    async person(workspaceId, role, opts = {}) {
      const n = ++seq;
      const email = opts.email ?? `${role}${n}@example.test`;
      const firstName = `${role.charAt(0).toUpperCase()}${role.slice(1)}`;
      const lastName = `Person${n}`;
      const user = await addUser(db, workspaceId, { email, first_name: firstName, last_name: lastName, role });
      if (opts.setUp !== false) await setUp(workspaceId, user.user_id, email, firstName, lastName);
      return { email, password: PASSWORD, userId: user.user_id, workspaceId, role, firstName, lastName };
    },
    async call(token, method, url, body) {
      const res = await app.inject({ method, url, payload: body, headers: { authorization: `Bearer ${token}` } });
      const json = res.body ? JSON.parse(res.body) : null;
      assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
      return { status: res.statusCode, data: json?.data };
    },
    async setupPath(workspaceId, userId) {
      return new URL((await mintSetupLink(db, workspaceId, userId, origin)).url).pathname;
    },
    async page(width = 1280) {
      const context = await browser.newContext({ viewport: { width, height: width < 600 ? 740 : 900 }, baseURL: origin });
      context.setDefaultTimeout(10_000);
      const page = await context.newPage();
      // A page error (an exception the app did not catch) fails the test that caused it.
      page.on('pageerror', (err) => {
        throw err;
      });
      return { context, page };
    },
    async signIn(page, person, path = '/app/sign-in') {
      await page.goto(path);
      await page.getByLabel('Email').fill(person.email);
      await page.getByLabel('Password', { exact: true }).fill(person.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((url) => !url.pathname.startsWith('/app/sign-in'));
    },
    async close() {
      await browser.close();
      await worker?.stop();
      await smtp?.close();
      await app.close();
      await drop();
    },
  };
  return harness;
}

let axeSource: string | undefined;

/** axe-core's serious and critical violations on the page as it is now ("rule: target"). */
export async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated, not added as a script tag: the app's CSP (rightly) refuses inline scripts.
  if (!(await page.evaluate<boolean>("'axe' in window"))) await page.evaluate<void>(axeSource ??= fs.readFileSync(AXE, 'utf8'));
  // Colours caught mid-transition (a button just pressed, on a slow machine) are not the
  // page's: let running CSS transitions and animations end first.
  await page.evaluate<void>('Promise.all(document.getAnimations().map((a) => a.finished.catch(() => {}))).then(() => {})');
  // A string, run in the page: the test files are typed for Node, not the DOM.
  const results = await page.evaluate<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }>("axe.run(document, { resultTypes: ['violations'] })");
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** The page is no wider than its viewport (no sideways scrolling). */
export async function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
}

/** Every page check of A2 at once: one h1, no serious/critical axe violation, no sideways scroll. */
export async function checkPage(page: Page, h1: string): Promise<void> {
  await page.getByRole('heading', { level: 1, name: h1 }).waitFor();
  assert.equal(await page.getByRole('heading', { level: 1 }).count(), 1, `${page.url()}: exactly one h1`);
  assert.deepEqual(await axeViolations(page), [], `${page.url()}: axe`);
  assert.ok((await sidewaysOverflow(page)) <= 0, `${page.url()}: scrolls sideways`);
}

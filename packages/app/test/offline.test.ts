// Issue 45 (A12, A13): the crew's day offline, in Chromium on the production build
// with its service worker. My day is opened at the depot, the phone goes offline
// (context.setOffline, which the service worker obeys too), the page is reloaded
// from the worker's precache and the phone's saved day, every button is used, the
// page reloaded again offline, and back online every write reaches the API exactly
// once. Also: a replay the API refuses shows on its visit; a session that ended
// while offline signs in again and then sends; sign-out and another person empty
// what the phone kept; Chromium finds the app installable; four visits of four
// clients show each one's client, address, phone, access notes and line items
// (the member's `work_items`, A14), without prices, online and offline.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type BrowserContext, chromium, type Page, type Request } from 'playwright-core';
import { waitFor } from '../../../test/webhook-receiver.ts';
import { CHROMIUM, checkPage, type Harness, type Person, skipBrowser, startHarness } from './harness.ts';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

interface Site {
  jobId: number;
  visitId: number;
  client: string;
  street: string;
  phone: string;
  access: string;
  /** The job's line items as My day lists them. */
  items: string[];
}

/** Waits until the service worker controls the page: from then a reload with no network is answered from its precache. */
export async function offlineReady(page: Page): Promise<void> {
  await page.evaluate<void>('navigator.serviceWorker.ready.then(() => undefined)');
  // Evaluated, not waitForFunction: the app's CSP refuses eval.
  await page.evaluate<boolean>("navigator.serviceWorker.controller !== null || new Promise((r) => navigator.serviceWorker.addEventListener('controllerchange', () => r(true)))");
}

/** The names of the object stores of the app's IndexedDB with something in them. */
const storedOn = (page: Page) =>
  page.evaluate<Record<string, number>>(`new Promise((resolve, reject) => {
    const open = indexedDB.open('fieldwork-offline');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const names = [...db.objectStoreNames];
      if (!names.length) { db.close(); resolve({}); return; }
      const tx = db.transaction(names, 'readonly');
      const counts = {};
      for (const n of names) { const r = tx.objectStore(n).count(); r.onsuccess = () => { if (r.result) counts[n] = r.result; }; }
      tx.oncomplete = () => { db.close(); resolve(counts); };
    };
  })`);

describe('the crew’s day offline (browser)', { skip: skipBrowser }, () => {
  let h: Harness;
  let ws: Awaited<ReturnType<Harness['workspace']>>;
  let crew: Person;
  const today = new Date().toISOString().slice(0, 10); // the workspace has no timezone: UTC
  const sites: Site[] = [];

  const call = async <T,>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object): Promise<T> => {
    const res = await h.app.inject({ method, url, payload, headers: { authorization: `Bearer ${ws.token}` } });
    assert.ok(res.statusCode < 300, `${method} ${url}: ${res.body}`);
    return res.body ? (res.json().data as T) : (undefined as T);
  };

  /** A job of its own client and property, with a visit today for `who`. */
  async function site(n: number, who: Person, start: string): Promise<Site> {
    const client = `Client${n} Family${n}`;
    const phone = `+1 555 010 ${String(1000 + n)}`;
    const street = `${n} Oak Avenue`;
    const access = `Gate code ${4000 + n}, dog in the yard`;
    const contact = await call<{ id: number }>('POST', '/api/v1/contacts', { first_name: `Client${n}`, last_name: `Family${n}`, phone });
    const property = await call<{ id: number }>('POST', `/api/v1/contacts/${contact.id}/properties`, { address: { street, city: 'Springfield', state: 'IL', postal_code: '62701' }, access_notes: access });
    const job = await call<{ id: number }>('POST', '/api/v1/jobs', {
      name: `Garden ${n}`,
      contact_id: contact.id,
      property_id: property.id,
      status: 'scheduled',
      line_items: [
        { name: 'Mow', quantity: 1, unitPrice: 45 },
        { name: 'Trim', quantity: n + 1, unitPrice: 30, unit_cost: 12 },
      ],
    });
    const visit = await call<{ id: number }>('POST', '/api/v1/events', { type: 'appointment', name: `Visit ${n}`, job_id: job.id, start_date: today, end_date: today, start_time: start, end_time: start.replace(':00', ':45'), assignee_ids: [who.userId] });
    return { jobId: job.id, visitId: visit.id, client, street, phone, access, items: ['1 × Mow', `${n + 1} × Trim`] };
  }

  before(async () => {
    h = await startHarness();
    ws = await h.workspace('Basement Gardens');
    crew = await h.person(ws.id, 'member');
    // Related data over several pages (more contacts and jobs than a page holds) before the crew's four.
    for (let i = 0; i < 105; i++) await call('POST', '/api/v1/contacts', { first_name: `Other${i}`, last_name: 'Person' });
    for (let n = 1; n <= 4; n++) sites.push(await site(n, crew, `${String(7 + n).padStart(2, '0')}:00`));
  });
  after(() => h?.close());

  const syncStatus = (page: Page) => page.getByRole('status', { name: 'Sync status' });
  const card = (page: Page, n: number) => page.getByRole('article', { name: `Visit ${n}` });

  async function expectDetails(page: Page): Promise<void> {
    for (const [i, s] of sites.entries()) {
      const c = card(page, i + 1);
      await c.getByText(s.client).waitFor();
      await c.getByText(s.street, { exact: false }).waitFor();
      assert.equal(await c.getByRole('link', { name: s.phone }).getAttribute('href'), `tel:${s.phone.replace(/[^\d+]/g, '')}`);
      await c.getByText(s.access).waitFor();
      const items = c.getByRole('list', { name: 'Line items' }).getByRole('listitem');
      await items.first().waitFor();
      assert.deepEqual(await items.allTextContents(), s.items);
      assert.equal(await c.getByText('$').count(), 0, 'no prices on My day');
    }
  }

  test('four visits of four clients each show their client, address, phone, access notes and line items, also after their job pages were opened', async () => {
    const { context, page } = await h.page(375);
    await h.signIn(page, crew);
    await page.waitForURL('**/app/my-day');
    // The job page keeps its own answer for the job: My day must not read it as its own.
    for (const s of sites.slice(0, 2)) {
      await page.goto(`/app/jobs/${s.jobId}`);
      await page.getByRole('heading', { level: 1, name: /Job #\d+/ }).waitFor();
    }
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'My day' }).click();
    await checkPage(page, 'My day');
    await expectDetails(page);
    await context.close();
  });

  test('Chromium finds the app installable: a manifest with icons, a service worker (CDP Page.getInstallabilityErrors)', async () => {
    // A profile on disk: Chromium never offers to install from an incognito context (browser.newContext).
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldwork-install-'));
    const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'], baseURL: h.origin });
    const page = context.pages()[0] ?? (await context.newPage());
    await h.signIn(page, crew);
    await page.waitForURL('**/app/my-day');
    await offlineReady(page);
    const cdp = await context.newCDPSession(page);
    const { installabilityErrors } = (await cdp.send('Page.getInstallabilityErrors')) as { installabilityErrors: { errorId: string }[] };
    assert.deepEqual(installabilityErrors, []);
    const manifest = await page.request.get('/app/manifest.webmanifest');
    assert.equal(manifest.headers()['content-type'], 'application/manifest+json');
    const sw = await page.request.get('/app/sw.js');
    assert.equal(sw.headers()['cache-control'], 'no-cache');
    assert.equal(sw.headers()['service-worker-allowed'], '/app/');
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  });

  /** Signed in at 375 px on My day, its code precached and its day saved; then no network. */
  async function offlineOnMyDay(person: Person): Promise<{ context: BrowserContext; page: Page }> {
    const { context, page } = await h.page(375);
    await h.signIn(page, person);
    await page.waitForURL('**/app/my-day');
    await card(page, 1).waitFor();
    await offlineReady(page);
    await context.setOffline(true);
    const tried: string[] = [];
    // Counted from the reloaded document on: a read the old page still had on its way
    // (a refetch caught by going offline, or cut by the reload) is not the new page's.
    // Requests are reported in the order they were made: the new page's come after the
    // reload's own navigation. (Listening only once the frame has navigated missed the
    // fast new page's first reads, reported in the same batch of events.)
    const reloaded = new Set<Request>();
    let navigated = false;
    const onRequest = (r: Request) => {
      if (r.frame() !== page.mainFrame()) return;
      if (r.isNavigationRequest()) navigated = true;
      else if (navigated) reloaded.add(r);
    };
    const onFailed = (r: Request) => {
      if (reloaded.has(r)) tried.push(new URL(r.url()).pathname);
    };
    page.on('request', onRequest);
    page.on('requestfailed', onFailed);
    await page.reload();
    await page.getByRole('status', { name: 'Sync status' }).getByText('Offline').waitFor();
    await card(page, 1).waitFor();
    page.off('request', onRequest);
    page.off('requestfailed', onFailed);
    // With no connection a read fails at once: asked once, not again after a retry's wait.
    for (const path of ['/api/v1/me', '/api/v1/events']) assert.equal(tried.filter((p) => p === path).length, 1, `${path} asked ${tried.filter((p) => p === path).length} times: ${tried.join(', ')}`);
    return { context, page };
  }

  test('offline: reload, every action, reload again; back online each write reaches the API exactly once', async () => {
    const { context, page } = await offlineOnMyDay(crew);
    await checkPage(page, 'My day');
    await expectDetails(page); // from the phone, not the network
    const visit = card(page, 1);
    const s = sites[0];

    await visit.getByRole('button', { name: 'Start visit' }).click();
    await visit.getByRole('button', { name: 'Add note' }).click();
    await visit.getByLabel('Note').fill('Side gate was locked, used the back lane');
    await visit.getByRole('button', { name: 'Save note' }).click();
    await visit.locator('input[type=file]').setInputFiles({ name: 'lawn.png', mimeType: 'image/png', buffer: PNG });
    await visit.getByRole('img', { name: 'Photo waiting to sync' }).waitFor();
    await visit.getByRole('button', { name: 'Clock in' }).click();
    await visit.getByRole('button', { name: 'Clock out' }).waitFor();
    await syncStatus(page).getByText('Waiting to sync (4)').waitFor();

    // The tab closed and opened again with no network: the queue and the day are still there.
    await page.reload();
    await syncStatus(page).getByText('Waiting to sync (4)').waitFor();
    await visit.getByRole('button', { name: 'Complete visit' }).click();
    await visit.getByRole('button', { name: 'Clock out' }).click();
    await syncStatus(page).getByText('Waiting to sync (6)').waitFor();
    await visit.getByRole('button', { name: 'Clock in' }).waitFor();
    await checkPage(page, 'My day');
    if (process.env.SHOTS) await page.screenshot({ path: `${process.env.SHOTS}/my-day-offline-375.png`, fullPage: true });

    // Nothing reached the API yet.
    assert.equal((await call<{ status: string }>('GET', `/api/v1/events/${s.visitId}`)).status, 'scheduled');
    assert.deepEqual(await call<unknown[]>('GET', `/api/v1/time-entries?user_id=${crew.userId}`), []);

    await context.setOffline(false);
    await syncStatus(page).getByText(/Waiting to sync/).waitFor({ state: 'detached', timeout: 20_000 });
    await page.getByText('Offline', { exact: true }).waitFor({ state: 'detached' });
    await visit.getByRole('img', { name: 'lawn.png' }).waitFor();

    const check = async () => {
      assert.equal((await call<{ status: string }>('GET', `/api/v1/events/${s.visitId}`)).status, 'completed');
      const notes = await call<{ comment: string }[]>('GET', `/api/v1/comments?module_type=job&module_id=${s.jobId}`);
      assert.deepEqual(
        notes.map((n) => n.comment),
        ['Side gate was locked, used the back lane'],
      );
      const photos = await call<{ name: string }[]>('GET', `/api/v1/uploads?module_type=job&module_id=${s.jobId}`);
      assert.deepEqual(
        photos.map((p) => p.name),
        ['lawn.png'],
      );
      const entries = await call<{ job_id: number; start_time: string; end_time: string | null }[]>('GET', `/api/v1/time-entries?user_id=${crew.userId}`);
      assert.equal(entries.length, 1);
      assert.equal(entries[0].job_id, s.jobId);
      assert.ok(entries[0].start_time && entries[0].end_time, 'clocked in and out');
    };
    await check();
    // A reload online sends nothing again.
    await page.reload();
    await card(page, 1).getByText('Completed').waitFor();
    await check();
    assert.deepEqual(Object.keys(await storedOn(page)).sort(), ['answers', 'days', 'device']);
    await context.close();
  });

  test('a replay the API refuses shows on its visit with the API’s message; the others are sent', async () => {
    const s = sites[1];
    const { context, page } = await h.page(375);
    await h.signIn(page, crew);
    await page.waitForURL('**/app/my-day');
    await card(page, 2).getByRole('button', { name: 'Clock in' }).click();
    await card(page, 2).getByRole('button', { name: 'Clock out' }).waitFor();
    await offlineReady(page);
    await context.setOffline(true);
    // Meanwhile the office removes the running entry (a mistaken clock in).
    const [entry] = await call<{ id: number; job_id: number }[]>('GET', `/api/v1/time-entries?user_id=${crew.userId}&job_id=${s.jobId}`);
    await call('DELETE', `/api/v1/time-entries/${entry.id}`);
    await card(page, 2).getByRole('button', { name: 'Clock out' }).click();
    await card(page, 2).getByRole('button', { name: 'Start visit' }).click();
    await syncStatus(page).getByText('Waiting to sync (2)').waitFor();
    await context.setOffline(false);
    const alert = card(page, 2).getByRole('alert');
    await alert.getByText('Not synced: Clock out').waitFor({ timeout: 20_000 });
    await alert.getByText('Time entry not found').waitFor();
    await syncStatus(page).getByText(/Waiting to sync/).waitFor({ state: 'detached' });
    assert.equal((await call<{ status: string }>('GET', `/api/v1/events/${s.visitId}`)).status, 'in_progress');
    await checkPage(page, 'My day');
    await alert.getByRole('button', { name: 'Dismiss' }).click();
    await alert.waitFor({ state: 'detached' });
    await context.close();
  });

  test('a session that ended while offline asks to sign in again, then sends what waited', async () => {
    const s = sites[2];
    const { context, page } = await offlineOnMyDay(crew);
    await card(page, 3).getByRole('button', { name: 'Add note' }).click();
    await card(page, 3).getByLabel('Note').fill('Hose left by the shed');
    await card(page, 3).getByRole('button', { name: 'Save note' }).click();
    await syncStatus(page).getByText('Waiting to sync (1)').waitFor();
    await context.clearCookies(); // the session is gone (expired, or signed out elsewhere)
    await context.setOffline(false);
    await page.waitForURL(/\/app\/sign-in\?next=%2Fmy-day/, { timeout: 20_000 });
    await page.getByLabel('Email').fill(crew.email);
    await page.getByLabel('Password', { exact: true }).fill(crew.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/app/my-day');
    // Sent at sign-in, or at the latest by the queue's 20-second round on a busy machine; read
    // every 250 ms, as polling every 20 ms spent the key's 1000 requests a minute (429) before that round.
    await waitFor('the note', async () => (await call<unknown[]>('GET', `/api/v1/comments?module_type=job&module_id=${s.jobId}`)).length > 0, 45_000, 250);
    await syncStatus(page).getByText(/Waiting to sync/).waitFor({ state: 'detached' });
    const notes = await call<{ comment: string }[]>('GET', `/api/v1/comments?module_type=job&module_id=${s.jobId}`);
    assert.deepEqual(
      notes.map((n) => n.comment),
      ['Hose left by the shed'],
    );
    await context.close();
  });

  test('signing out empties the phone; another person signing in never sees the last one’s day, nor another workspace’s', async () => {
    const { context, page } = await h.page(375);
    await h.signIn(page, crew);
    await page.waitForURL('**/app/my-day');
    await card(page, 1).waitFor();
    await waitFor('the day saved', async () => (await storedOn(page)).days === 1);
    await page.getByRole('button', { name: 'Account' }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.waitForURL('**/app/sign-in');
    assert.deepEqual(await storedOn(page), {});

    // Another person (here of another workspace) on the same phone, after the first one's session ended without signing out.
    await h.signIn(page, crew);
    await page.waitForURL('**/app/my-day');
    await card(page, 1).waitFor();
    await offlineReady(page);
    const other = await h.workspace('Other Gardens');
    const stranger = await h.person(other.id, 'member');
    await context.clearCookies();
    await h.signIn(page, stranger);
    await page.waitForURL('**/app/my-day');
    await page.getByText('No visits for you today.').waitFor();
    await context.setOffline(true);
    await page.reload();
    await page.getByRole('status', { name: 'Sync status' }).getByText('Offline').waitFor();
    await page.getByText('No visits for you today.').waitFor();
    assert.equal(await page.getByRole('article').count(), 0);
    assert.equal(await page.getByText('Client1 Family1').count(), 0);
    await context.close();
  });
});

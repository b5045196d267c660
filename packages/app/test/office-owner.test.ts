// A13, what is left of it, in a real browser on the production build: the job page's
// service address, access notes and one status; "You don't have access to …" for a page
// a role may not open (from the API's 403); the "Notifications" button with its unread
// count; Home's "Get started" steps, and no payments chart before a payment.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { Worker } from '../../../src/outbox/worker.ts';
import { axeViolations, checkPage, type Harness, type Person, skipBrowser, startHarness } from './harness.ts';

const SHOTS = process.env.OFFICE_SHOTS; // a folder: screenshots of the pages at 375 and 1280 px
const shot = async (page: Page, name: string) => {
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
};

describe('office polish (browser)', { skip: skipBrowser }, () => {
  let h: Harness;
  let ws: Awaited<ReturnType<Harness['workspace']>>;
  let manager: Person;
  let member: Person;
  const ids = { ada: 0, job: 0, quote: 0 };
  const call = (method: 'GET' | 'POST' | 'PUT', url: string, body?: object) => h.call(ws.token, method, url, body);

  before(async () => {
    h = await startHarness();
    ws = await h.workspace('Lovelace Landscaping Ltd');
    manager = await h.person(ws.id, 'manager');
    member = await h.person(ws.id, 'member');
    ids.ada = (await call('POST', '/api/v1/contacts', { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.test' })).data.id;
    const property = (
      await call('POST', `/api/v1/contacts/${ids.ada}/properties`, {
        address: { street: '12 Difference Row', city: 'London', postal_code: 'N1' },
        access_notes: 'Gate code 4512.\nBeware of the dog.',
      })
    ).data.id;
    ids.job = (await call('POST', '/api/v1/jobs', { contact_id: ids.ada, property_id: property, name: 'Hedge trimming', status: 'scheduled' })).data.id;
  });
  after(() => h?.close());

  const signedIn = async (person: Pick<Person, 'email' | 'password'>, width = 1280, path = '/') => {
    const { context, page } = await h.page(width);
    await h.signIn(page, person, `/app/sign-in?next=${encodeURIComponent(path)}`);
    return { context, page };
  };

  test('the job page shows the service address and its access notes once, and the status once', async () => {
    for (const [who, width] of [
      [ws.owner, 1280],
      [ws.owner, 375],
      [member, 375],
    ] as const) {
      const { context, page } = await signedIn(who, width, `/jobs/${ids.job}`);
      await checkPage(page, /^Job #\d+$/ as unknown as string);
      const main = page.getByRole('main');
      assert.equal(await main.getByText('12 Difference Row, London, N1').count(), 1, 'the address, once');
      assert.equal(await main.getByText('Access notes').count(), 1);
      assert.match(await main.getByText('Gate code 4512.').innerText(), /Gate code 4512\.\s+Beware of the dog\./);
      // The owner changes the status in "Status" (its value is the status); the member sees a badge. Never both.
      const scheduled = await main.getByText('Scheduled', { exact: true }).count();
      const combobox = await main.getByRole('combobox', { name: 'Status' }).count();
      if (who === member) assert.deepEqual([combobox, scheduled], [0, 1], 'member: the badge only');
      else {
        assert.equal(combobox, 1);
        assert.equal(await main.getByRole('combobox', { name: 'Status' }).inputValue(), 'Scheduled');
        assert.equal(scheduled, 0, 'owner: no second status beside the select');
      }
      await shot(page, `job-${who.role}-${width}`);
      await context.close();
    }
  });

  test('a page a role may not open says so in words, from the API\'s 403, never a scope name', async () => {
    const refused: [Person, string, string][] = [
      [member, '/invoices', 'invoices'],
      [member, `/quotes`, 'quotes'],
      [member, '/reports', 'reports'],
      [member, '/settings/team', 'settings'],
      [manager, '/settings/company', 'settings'],
      [manager, '/settings', 'settings'],
    ];
    for (const width of [1280, 375]) {
      const { context, page } = await signedIn(member, width, '/my-day');
      for (const [who, path, area] of refused) {
        if (who !== member) continue;
        await page.goto(`/app${path}`);
        await checkPage(page, `You don't have access to ${area}`);
        const text = await page.getByRole('main').innerText();
        assert.doesNotMatch(text, /:read|:write|scope/i, `${path}: no scope names`);
        // The shell stays (header and its menu): the person can go elsewhere.
        await page.getByRole('button', { name: 'Account' }).waitFor();
        await shot(page, `no-access-${path.replaceAll('/', '_')}-${width}`);
      }
      // A page the member may open is not refused.
      await page.goto('/app/jobs');
      await checkPage(page, 'Jobs');
      await context.close();
    }
    const { context, page } = await signedIn(manager, 1280, '/');
    for (const [who, path, area] of refused) {
      if (who !== manager) continue;
      await page.goto(`/app${path}`);
      await checkPage(page, `You don't have access to ${area}`);
    }
    // The manager opens invoices and reports.
    await page.goto('/app/invoices');
    await checkPage(page, 'Invoices');
    await context.close();
  });

  test('the refusal comes from the API: a page whose read answers 403 shows it, not only a hidden link', async () => {
    // The member's navigation has no Invoices link; the page itself asked and was refused.
    const { context, page } = await signedIn(member, 1280, '/my-day');
    const refusals: string[] = [];
    page.on('response', (r) => {
      if (r.status() === 403) refusals.push(new URL(r.url()).pathname);
    });
    await page.goto('/app/invoices');
    await checkPage(page, "You don't have access to invoices");
    assert.ok(refusals.includes('/api/v1/invoices'), `the API refused: ${refusals.join(', ')}`);
    await context.close();
  });

  test('"Notifications" in the header: the unread count in its name, the list with links, read when opened, "Mark all read"', async () => {
    for (const name of ['Roof', 'Gutters']) {
      ids.quote = (await call('POST', '/api/v1/quotes', { contact_id: ids.ada, name, status: 'awaiting_response', line_items: [{ name: 'Work', unitPrice: 10, quantity: 1 }] })).data.id;
    }
    for (const width of [375, 1280]) {
      const { context, page } = await signedIn(manager, width, '/');
      await checkPage(page, 'Home');
      if (width === 375) {
        // The header keeps it on a phone, without scrolling sideways (checkPage).
        await page.getByRole('button', { name: 'Notifications, 2 unread' }).waitFor();
        await context.close();
        continue;
      }
      const button = page.getByRole('button', { name: 'Notifications, 2 unread' });
      await button.click();
      const dialog = page.getByRole('dialog', { name: 'Notifications' });
      await dialog.waitFor();
      await dialog.getByText(/Quote #\d+ Gutters is awaiting the client's response/).waitFor();
      assert.deepEqual(await axeViolations(page), [], 'axe with Notifications open');
      await shot(page, `notifications-${width}`);
      await dialog.getByRole('link', { name: /Gutters/ }).click();
      await page.waitForURL(`**/app/quotes/${ids.quote}`);
      await page.getByRole('button', { name: 'Notifications, 1 unread' }).waitFor();
      await page.getByRole('button', { name: 'Notifications, 1 unread' }).click();
      await dialog.getByRole('button', { name: 'Mark all read' }).click();
      await page.getByRole('button', { name: 'Notifications', exact: true }).waitFor();
      await context.close();
    }
    // Another person's notifications are not the manager's: the member has none.
    const { context, page } = await signedIn(member, 375, '/my-day');
    await page.getByRole('button', { name: 'Notifications', exact: true }).click();
    await page.getByRole('dialog', { name: 'Notifications' }).getByText('No notifications yet.').waitFor();
    assert.deepEqual(await axeViolations(page), [], 'axe with Notifications open at 375 px');
    await shot(page, 'notifications-member-375');
    await context.close();
  });

  test('a new workspace\'s Home shows "Get started" until each step is done, each linking to its page', async () => {
    const fresh = await h.workspace('Babbage Builders');
    const { context, page } = await signedIn(fresh.owner, 1280, '/');
    await checkPage(page, 'Home');
    const steps = page.getByRole('region', { name: 'Get started' });
    await steps.getByText('0 of 4 done').waitFor();
    // No payment yet: a sentence, not a chart of zeros on a made-up scale.
    const payments = page.getByRole('region', { name: 'Payments received' });
    await payments.getByText('No payments received in the last 12 months.').waitFor();
    assert.equal(await payments.locator('.recharts-wrapper, table').count(), 0);
    await shot(page, 'get-started-1280');
    for (const [label, path] of [
      ['Add your company details', '/app/settings/company'],
      ['Add your services to the price book', '/app/settings/price-book'],
      ['Add your first client', '/app/clients/new'],
      ['Invite your team', '/app/settings/team'],
    ]) {
      assert.equal(await steps.getByRole('link', { name: label }).getAttribute('href'), path);
    }
    // Done from real data: a client, then the rest through the API.
    const api = (method: 'POST' | 'PUT', url: string, body: object) => h.call(fresh.token, method, url, body);
    await api('POST', '/api/v1/contacts', { first_name: 'Charles', last_name: 'Babbage' });
    await page.reload();
    await steps.getByText('1 of 4 done').waitFor();
    assert.equal(await steps.getByRole('link', { name: 'Add your first client' }).count(), 0);
    await steps.getByText('Done: Add your first client').waitFor();
    await api('PUT', '/api/v1/workspace', { phone: '+44 20 7946 0000' });
    await api('POST', '/api/v1/services', { name: 'Survey', price: 90 });
    await h.person(fresh.id, 'member', { setUp: false });
    await page.reload();
    await checkPage(page, 'Home');
    await page.getByRole('heading', { name: "Today's visits" }).waitFor();
    assert.equal(await page.getByRole('region', { name: 'Get started' }).count(), 0, 'gone when all are done');
    await context.close();
    // A manager may not change the workspace: no steps to take.
    const { context: c2, page: p2 } = await signedIn(manager, 375, '/');
    await checkPage(p2, 'Home');
    await p2.getByRole('heading', { name: "Today's visits" }).waitFor();
    assert.equal(await p2.getByText('Get started').count(), 0);
    await c2.close();
  });
});

/** The Team page after inviting `email`: never "sent" until the log says so; the invite's email state; "Copy setup link" works. */
async function inviteNotSent(h: Harness, owner: Person, email: string, state: RegExp) {
  const { context, page } = await h.page(375);
  await h.signIn(page, owner, '/app/sign-in?next=%2Fsettings%2Fteam');
  await checkPage(page, 'Team');
  await page.getByRole('button', { name: 'Invite team member' }).click();
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Send invite' }).click();
  const status = page.getByRole('status').filter({ hasText: email });
  await status.getByRole('link', { name: 'message log' }).waitFor();
  assert.doesNotMatch(await status.innerText(), /\bsent\b/i);
  const row = page.getByRole('row').filter({ hasText: email });
  // The worker's verdict reaches the page when it asks again (a reload here).
  for (let i = 0; i < 100 && !state.test(await row.innerText()); i++) {
    await page.waitForTimeout(200);
    await page.reload();
    await row.waitFor();
  }
  assert.match(await row.innerText(), state);
  assert.doesNotMatch(await row.innerText(), /\bSent\b/);
  await row.getByRole('button', { name: 'Copy setup link' }).click();
  const link = page.getByLabel(`Setup link for ${email}`);
  await link.waitFor();
  assert.deepEqual(await axeViolations(page), [], 'axe with the setup link shown');
  const url = await link.inputValue();
  assert.match(url, /\/app\/setup\/[\w-]+$/);
  // The link sets the person up, like the emailed one would.
  const other = await h.page(375);
  await other.page.goto(url);
  await other.page.getByLabel('First name').waitFor();
  await other.context.close();
  await context.close();
}

describe('a message that could not be sent is never shown as sent (browser)', { skip: skipBrowser }, () => {
  test('no SMTP_URL: the invite email is "Not sent", "Copy setup link" gives a working link; "Send to client" says queued, with the message log', async () => {
    const h = await startHarness();
    // A worker as `fieldwork worker` runs it, without SMTP_URL.
    const worker = new Worker({ db: h.db, dialect: h.database.dialect, config: h.config, pollMs: 20 });
    worker.start();
    try {
      const ws = await h.workspace('Hopper Heating');
      await inviteNotSent(h, ws.owner, 'grace@example.test', /Not sent: SMTP_URL is not set/);
      const contact = (await h.call(ws.token, 'POST', '/api/v1/contacts', { first_name: 'Carla', last_name: 'Client', email: 'carla@example.test' })).data.id;
      const quote = (await h.call(ws.token, 'POST', '/api/v1/quotes', { contact_id: contact, name: 'Boiler', line_items: [{ name: 'Work', unitPrice: 10, quantity: 1 }] })).data.id;
      const { context, page } = await h.page(1280);
      await h.signIn(page, ws.owner, `/app/sign-in?next=${encodeURIComponent(`/quotes/${quote}`)}`);
      await page.getByRole('button', { name: 'Send to client' }).click();
      const status = page.getByRole('status').filter({ hasText: 'Queued for carla@example.test.' });
      await status.getByRole('link', { name: 'message log' }).click();
      await checkPage(page, 'Messages');
      await context.close();
    } finally {
      await worker.stop();
      await h.close();
    }
  });

  test('an address the mail server refuses: the invite email "Could not be sent", with the server\'s reason', async () => {
    const h = await startHarness({ mail: true, smtp: { rcpt: (_n, address) => (address.startsWith('nobody@') ? { code: 550, message: 'No such user here' } : null) } });
    try {
      const ws = await h.workspace('Lamarr Lighting');
      await inviteNotSent(h, ws.owner, 'nobody@example.test', /Could not be sent: .*No such user here/);
    } finally {
      await h.close();
    }
  });
});

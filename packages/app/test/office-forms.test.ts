// What a new owner tripped over (A13), in a real browser, checked through the
// API: every write button safe against a double click (one invoice, one email,
// one payment: A160); validation messages in words for people (A161); a form
// with unsaved changes warns before the page is left or reloaded (A162); time
// zone, country and currency from lists, a new workspace in its owner's browser's
// zone, dates in the workspace's zone (A163-A165).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { createKey } from '../../../src/modules/keys/keys.service.ts';
import { createWorkspace } from '../../../src/modules/workspace/workspace.service.ts';
import { waitFor } from '../../../test/webhook-receiver.ts';
import { checkPage, type Harness, PASSWORD, skipBrowser, startHarness } from './harness.ts';

/** Two clicks in one task: the second comes before the app can re-render (a fast double click). */
const doubleClick = (target: Locator) =>
  target.evaluate((el: unknown) => {
    const button = el as { click: () => void };
    button.click();
    button.click();
  });
const pathId = (page: Page, prefix: string) => Number(new URL(page.url()).pathname.slice(prefix.length).split('/')[0]);

describe('office forms (browser)', { skip: skipBrowser }, () => {
  let h: Harness;
  let ws: Awaited<ReturnType<Harness['workspace']>>;
  const get = async <T,>(url: string): Promise<T> => (await h.call(ws.token, 'GET', url)).data as T;
  const post = async <T,>(url: string, body: object): Promise<T> => (await h.call(ws.token, 'POST', url, body)).data as T;

  before(async () => {
    h = await startHarness({ mail: true });
    ws = await h.workspace('Greenleaf Forms');
  });
  after(() => h?.close());

  test('a double click writes once: Create invoice, Send to client, Record payment, Mark as accepted', async () => {
    const client = await post<{ id: number }>('/api/v1/contacts', { first_name: 'Dana', last_name: 'Double', email: 'dana@example.test' });
    const job = await post<{ id: number; number: number }>('/api/v1/jobs', { contact_id: client.id, name: 'Fence', line_items: [{ name: 'Fence repair', quantity: 1, unitPrice: 120 }] });
    const quote = await post<{ id: number }>('/api/v1/quotes', { contact_id: client.id, line_items: [{ name: 'Gutter clean', quantity: 1, unitPrice: 80 }] });
    const { context, page } = await h.page();
    await h.signIn(page, ws.owner, `/app/sign-in?next=${encodeURIComponent(`/jobs/${job.id}`)}`);
    await checkPage(page, `Job #${job.number}`);

    await doubleClick(page.getByRole('button', { name: 'Create invoice' }));
    await page.waitForURL(/\/app\/invoices\/\d+$/);
    const invoiceId = pathId(page, '/app/invoices/');
    await page.getByRole('button', { name: 'Send to client' }).waitFor();
    assert.equal((await get<unknown[]>(`/api/v1/invoices?job_id=${job.id}`)).length, 1, 'one invoice');

    await doubleClick(page.getByRole('button', { name: 'Send to client' }));
    await page.getByRole('status').filter({ hasText: 'dana@example.test' }).waitFor();
    await waitFor('the email', () => h.smtp?.mails.some((m) => m.to.includes('dana@example.test')) ?? false);
    const sent = await get<{ module_id: number }[]>('/api/v1/messages?type=invoice_to_customer');
    assert.equal(sent.filter((m) => m.module_id === invoiceId).length, 1, 'one message');

    await page.getByRole('button', { name: 'Record payment' }).click();
    await page.getByLabel('Amount').fill('50');
    await doubleClick(page.getByRole('button', { name: 'Save payment' }));
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await page.getByTestId('amount-paid').filter({ hasText: '50' }).waitFor();
    assert.equal((await get<unknown[]>(`/api/v1/invoices/${invoiceId}/payments`)).length, 1, 'one payment');

    await page.goto(`/app/quotes/${quote.id}`);
    const history = page.getByRole('region', { name: 'Status history' });
    await history.getByText('No status changes yet.').waitFor(); // a draft made through the API (A240)
    await doubleClick(page.getByRole('button', { name: 'Send to client' }));
    await page.getByRole('status').filter({ hasText: 'dana@example.test' }).waitFor();
    await history.getByText(/^Awaiting response · /).waitFor();
    assert.equal(await history.getByText('No status changes yet.').count(), 0);
    await doubleClick(page.getByRole('button', { name: 'Mark as accepted' }));
    await page.getByRole('button', { name: 'Convert to job' }).waitFor();
    const quoteMessages = await get<{ module_id: number }[]>('/api/v1/messages?type=quote_to_customer');
    assert.equal(quoteMessages.filter((m) => m.module_id === quote.id).length, 1, 'one quote email');
    const changes = (await get<{ status_changes: { status: string }[] }>(`/api/v1/quotes/${quote.id}`)).status_changes;
    assert.equal(changes.filter((c) => c.status === 'accepted').length, 1, 'accepted once');
    assert.equal((await get<unknown[]>(`/api/v1/jobs?contact_id=${client.id}`)).length, 2, 'one job made by the acceptance');
    await context.close();
  });

  test("validation messages read as sentences, never the schema validator's wording", async () => {
    const { context, page } = await h.page(375);
    await h.signIn(page, ws.owner, '/app/sign-in?next=%2Fclients%2Fnew');
    await checkPage(page, 'New client');
    await page.getByLabel('Last name').fill('Nameless');
    await page.getByLabel('Email').fill('nameless@');
    await page.getByRole('button', { name: 'Save client' }).click();
    await page.getByRole('alert').filter({ hasText: 'Check the highlighted fields.' }).waitFor();
    const described = async (label: string) => {
      const field = page.getByLabel(label, { exact: true });
      assert.equal(await field.getAttribute('aria-invalid'), 'true', label);
      const ids = ((await field.getAttribute('aria-describedby')) ?? '').split(' ').filter(Boolean);
      return (await Promise.all(ids.map((id) => page.locator(`[id="${id}"]`).textContent()))).join(' | ');
    };
    assert.match(await described('First name'), /Enter a first name/);
    assert.match(await described('Email'), /Enter an email like name@example\.com/);
    const text = (await page.locator('main').textContent()) ?? '';
    assert.doesNotMatch(text, /must (NOT|have|match|be)|required property|fewer than/, 'no validator wording');
    assert.deepEqual(await get<unknown[]>('/api/v1/contacts?search=Nameless'), [], 'nothing created');
    await context.close();
  });

  test('a form with unsaved changes warns before the page is left (a link, a reload); saved, it does not', async () => {
    const { context, page } = await h.page();
    await h.signIn(page, ws.owner, '/app/sign-in?next=%2Fclients%2Fnew');
    await checkPage(page, 'New client');
    const dialogs: { type: string; message: string }[] = [];
    let answer: 'accept' | 'dismiss' = 'dismiss';
    page.on('dialog', (dialog) => {
      dialogs.push({ type: dialog.type(), message: dialog.message() });
      void (answer === 'accept' ? dialog.accept() : dialog.dismiss());
    });

    // Nothing typed: leaving asks nothing.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clients' }).click();
    await checkPage(page, 'Clients');
    assert.equal(dialogs.length, 0);

    await page.goto('/app/clients/new');
    await page.getByLabel('First name').pressSequentially('Wendy');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Quotes' }).click();
    await waitFor('the question', () => dialogs.length === 1);
    assert.deepEqual(dialogs[0], { type: 'confirm', message: 'Leave this page? Your changes are not saved.' });
    assert.match(page.url(), /\/app\/clients\/new$/, 'stayed');
    assert.equal(await page.getByLabel('First name').inputValue(), 'Wendy', 'what was typed stays');

    // A reload or a closed tab: the browser's own question.
    await page.close({ runBeforeUnload: true });
    await waitFor('the unload question', () => dialogs.length === 2);
    assert.equal(dialogs[1].type, 'beforeunload');
    assert.equal(page.isClosed(), false, 'dismissed: the page stays');

    // Leaving anyway, then a saved form: no question.
    answer = 'accept';
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Quotes' }).click();
    await checkPage(page, 'Quotes');
    assert.equal(dialogs.length, 3);
    await page.goto('/app/clients/new');
    await page.getByLabel('First name').pressSequentially('Wendy');
    await page.getByLabel('Last name').pressSequentially('Saved');
    await page.getByRole('button', { name: 'Save client' }).click();
    await checkPage(page, 'Wendy Saved');
    assert.equal(dialogs.length, 3, 'saving asks nothing');
    await context.close();
  });

  test("time zone, country and currency are chosen from lists; a new workspace takes the browser's zone; dates are the workspace's", async () => {
    // The first owner sets up from a browser in Los Angeles: the workspace (UTC by default) moves there.
    const made = await createWorkspace(h.db, { name: 'Westside Gardens', owner: { email: 'west@example.test', first_name: 'Wes', last_name: 'West' } });
    assert.equal(made.workspace.timezone, 'UTC');
    const context = await h.browser.newContext({ viewport: { width: 375, height: 740 }, baseURL: h.origin, timezoneId: 'America/Los_Angeles' });
    const page = await context.newPage();
    await page.goto(await h.setupPath(made.workspace.id, made.owner.user_id));
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await checkPage(page, 'Home');
    const zoneOf = async (id: number) => (await h.db.selectFrom('workspaces').select('timezone').where('id', '=', id).executeTakeFirstOrThrow()).timezone;
    assert.equal(await zoneOf(made.workspace.id), 'America/Los_Angeles');

    // A client created at 21:00 in Los Angeles (05:00 UTC the next day) was created on the 4th there.
    const key = await createKey(h.db, { workspaceId: made.workspace.id, type: 'general' });
    const { id } = (await h.call(key.token, 'POST', '/api/v1/contacts', { first_name: 'Eve', last_name: 'Evening' })).data as { id: number };
    await h.db.updateTable('contacts').set({ created_at: '2026-03-05T05:00:00.000Z', updated_at: '2026-03-05T05:00:00.000Z' }).where('id', '=', id).execute();
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto('/app/clients');
    const row = page.getByRole('row').filter({ hasText: 'Eve Evening' });
    await row.waitFor();
    assert.match((await row.textContent()) ?? "", /March 4, 2026/);
    assert.doesNotMatch((await row.textContent()) ?? "", /March 5, 2026/);

    // Settings -> Company: the three are lists.
    await page.goto('/app/settings/company');
    await checkPage(page, 'Company');
    assert.ok((await page.getByLabel('Time zone').locator('option').count()) > 300, 'every zone');
    await page.getByLabel('Time zone').selectOption('America/Chicago');
    await page.getByLabel('Country').selectOption({ label: 'Canada (CA)' });
    await page.getByLabel('Currency').selectOption({ label: 'EUR – Euro' });
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    const w = await h.db.selectFrom('workspaces').select(['timezone', 'country', 'currency']).where('id', '=', made.workspace.id).executeTakeFirstOrThrow();
    assert.deepEqual(w, { timezone: 'America/Chicago', country: 'CA', currency: 'eur' });
    await context.close();
  });
});

// A2 in a real browser on the production build: the Main navigation per role,
// every page's one h1 with no serious axe violation and no sideways scrolling at
// 375 px, the "Menu" button on a phone, the header Search, and Home's counts,
// amount due, payments chart and activity against seeded records.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { checkPage, type Harness, skipBrowser, startHarness } from './harness.ts';

const OFFICE = ['Home', 'Schedule', 'Clients', 'Requests', 'Quotes', 'Jobs', 'Invoices', 'Timesheets', 'Reports', 'Settings'];
const MEMBER = ['My day', 'Schedule', 'Clients', 'Jobs', 'Timesheets'];

describe('the shell and Home (browser)', { skip: skipBrowser }, () => {
  let h: Harness;
  let ws: Awaited<ReturnType<Harness['workspace']>>;
  let clientId: number;
  before(async () => {
    h = await startHarness();
    ws = await h.workspace('Greenleaf Gardens');
    const call = (method: 'POST' | 'PUT', url: string, body: object) => h.call(ws.token, method, url, body);
    const thisMonth = `${new Date().toISOString().slice(0, 7)}-01`;
    const contact = (await call('POST', '/api/v1/contacts', { first_name: 'Dana', last_name: 'Reyes', email: 'dana@reyes.test', phone: '555-0142' })).data;
    clientId = contact.id;
    for (const name of ['Fix fence', 'Gutters', 'Hedges']) await call('POST', '/api/v1/requests', { name, contact_id: contact.id });
    await call('POST', '/api/v1/quotes', { name: 'Patio', contact_id: contact.id, status: 'awaiting_response', line_items: [{ name: 'Stone', unitPrice: 900, quantity: 1 }] });
    await call('POST', '/api/v1/jobs', { name: 'Lawn care', contact_id: contact.id, status: 'completed' });
    await call('POST', '/api/v1/jobs', { name: 'Tree work', contact_id: contact.id, status: 'completed' });
    const late = (await call('POST', '/api/v1/invoices', { name: 'Spring', status: 'overdue', line_items: [{ name: 'Work', unitPrice: 1200, quantity: 1 }] })).data;
    await call('POST', `/api/v1/invoices/${late.id}/payments`, { amount: 200, method: 'card', paid_on: thisMonth });
    await call('PUT', `/api/v1/invoices/${late.id}`, { status: 'overdue', due_date: '2020-01-31' });
  });
  after(() => h?.close());

  const navLinks = async (page: import('playwright-core').Page) =>
    page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();

  test('owner: the ten links of the Main navigation; each page has its one h1, passes axe and fits 1280 px', async () => {
    const { context, page } = await h.page();
    await h.signIn(page, ws.owner);
    await checkPage(page, 'Home');
    assert.deepEqual(await navLinks(page), OFFICE);
    for (const name of OFFICE.slice(1)) {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
      await checkPage(page, name);
    }
    await page.getByRole('button', { name: 'Account' }).click();
    await page.getByRole('menuitem', { name: 'Account settings' }).click();
    await page.getByRole('menu').waitFor({ state: 'detached' });
    await checkPage(page, 'Account');
    await context.close();
  });

  test('member: "My day", "Schedule", "Clients", "Jobs", "Timesheets" only; Home is My day', async () => {
    const member = await h.person(ws.id, 'member');
    const { context, page } = await h.page();
    await h.signIn(page, member);
    await page.waitForURL('**/app/my-day');
    await checkPage(page, 'My day');
    assert.deepEqual(await navLinks(page), MEMBER);
    await context.close();
  });

  test('manager: everything but Settings', async () => {
    const manager = await h.person(ws.id, 'manager');
    const { context, page } = await h.page();
    await h.signIn(page, manager);
    await checkPage(page, 'Home');
    assert.deepEqual(await navLinks(page), OFFICE.filter((n) => n !== 'Settings'));
    await context.close();
  });

  test('375 px: the navigation hides behind "Menu"; every page fits without sideways scrolling and passes axe', async () => {
    const { context, page } = await h.page(375);
    await h.signIn(page, ws.owner);
    await checkPage(page, 'Home');
    const nav = page.getByRole('navigation', { name: 'Main' });
    assert.equal(await nav.isVisible(), false);
    // Hidden, its links are not drawn at all (not only hidden): drawn when "Menu" opens it.
    assert.equal(await page.locator('.fw-navbar a').count(), 0);
    for (const name of OFFICE.slice(1)) {
      await page.getByRole('button', { name: 'Menu' }).click();
      await nav.getByRole('link', { name, exact: true }).click();
      await checkPage(page, name);
      assert.equal(await nav.isVisible(), false, 'the menu closes after choosing');
    }
    await page.goto('/app/account');
    await checkPage(page, 'Account');
    await context.close();
  });

  test('Home: the four counts with links, the amount due, 12 months of payments and recent activity', async () => {
    const { context, page } = await h.page();
    await h.signIn(page, ws.owner);
    await checkPage(page, 'Home');
    const count = (label: string) => page.locator(`[data-count="${label}"]`).textContent();
    await page.locator('[data-count="New requests"]').filter({ hasText: '3' }).waitFor();
    assert.equal(await count('Quotes awaiting response'), '1');
    assert.equal(await count('Jobs to invoice'), '2');
    assert.equal(await count('Overdue invoices'), '1');
    assert.equal(await page.locator('[data-amount-due]').textContent(), '1 invoice, $1,000.00 due'); // how many as well as how much (A153)
    // The chart's figures as a table for screen readers: this month has the payment.
    await page.getByRole('table', { name: 'Payments received per month, last 12 months' }).waitFor({ state: 'attached' });
    assert.equal(await page.getByRole('table', { name: 'Payments received per month, last 12 months' }).getByRole('row').count(), 12);
    assert.ok(await page.getByRole('row').filter({ hasText: '$200.00' }).count());
    await page.getByText('Payment received on invoice').first().waitFor();
    await page.getByText('Dana Reyes created').waitFor();
    await checkPage(page, 'Home'); // again with the chart drawn
    await page.getByRole('link', { name: 'New requests' }).click();
    await page.waitForURL('**/app/requests?tab=new');
    await checkPage(page, 'Requests');
    await context.close();
  });

  test('header Search finds a client by phone and opens it by keyboard', async () => {
    const { context, page } = await h.page();
    await h.signIn(page, ws.owner);
    const search = page.getByRole('combobox', { name: 'Search' });
    await search.fill('Reyes');
    await page.getByRole('option', { name: /Dana Reyes/ }).waitFor();
    await search.press('ArrowDown');
    await search.press('Enter');
    await page.waitForURL(`**/app/clients/${clientId}`);
    await context.close();
  });
});

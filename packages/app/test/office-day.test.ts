// Issue 20 item 7: the office manager's day in a real browser on the production
// build, checked through the API after each step: a client made in the form,
// a property, a request, a quote with two lines (one from the price book) whose
// stored total is the one the page showed, Send to client into the SMTP server,
// accepted and converted to a job, a visit, an invoice, a payment over the
// balance refused with the API's text, two payments making it `paid`. Every
// page passes the A2 checks (one h1, axe, no sideways scroll at 375 px).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { waitFor } from '../../../test/webhook-receiver.ts';
import { axeViolations, checkPage, type Harness, type Person, skipBrowser, startHarness } from './harness.ts';

interface Envelope {
  data: Record<string, unknown> & { id: number };
}

describe('the office day (browser)', { skip: skipBrowser }, () => {
  let h: Harness;
  let ws: Awaited<ReturnType<Harness['workspace']>>;
  let manager: Person;
  const apiCall = async (method: 'GET' | 'POST', url: string, payload?: object): Promise<Envelope> => {
    const res = await h.app.inject({ method, url, headers: { authorization: `Bearer ${ws.token}` }, ...(payload ? { payload } : {}) });
    assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json<Envelope>();
  };
  const get = async <T,>(url: string) => (await apiCall('GET', url)).data as unknown as T;

  before(async () => {
    h = await startHarness({ mail: true });
    ws = await h.workspace('Greenleaf Gardens');
    manager = await h.person(ws.id, 'manager');
    await apiCall('POST', '/api/v1/services', { name: 'Lawn mowing', price: 45.5, taxable: true });
    await apiCall('POST', '/api/v1/tax-rates', { name: 'State tax', rate: 8.25 });
  });
  after(() => h?.close());

  const pathId = (page: Page, prefix: string) => Number(new URL(page.url()).pathname.slice(prefix.length).split('/')[0]);

  test('find or create the client, request, quote, send, accept, job, visit, invoice, payments', async () => {
    const { context, page } = await h.page(375);
    await h.signIn(page, manager, '/app/sign-in?next=%2Fclients');
    await checkPage(page, 'Clients');

    // New client
    await page.getByRole('link', { name: 'New client' }).click();
    await checkPage(page, 'New client');
    await page.getByLabel('First name').fill('Carla');
    await page.getByLabel('Last name').fill('Customer');
    await page.getByLabel('Company').fill('Carla Co');
    await page.getByLabel('Email').fill('carla@example.test');
    await page.getByLabel('Phone').fill('+1 555 0100');
    await page.getByRole('combobox', { name: 'Type' }).click();
    await page.getByRole('option', { name: 'Lead' }).click();
    await page.getByRole('button', { name: 'Save client' }).click();
    await page.waitForURL(/\/app\/clients\/\d+$/);
    await checkPage(page, 'Carla Customer');
    const clientId = pathId(page, '/app/clients/');
    const contact = await get<{ first_name: string; last_name: string; company: string; email: string; phone: string; type: string }>(`/api/v1/contacts/${clientId}`);
    assert.deepEqual(
      { first_name: contact.first_name, last_name: contact.last_name, company: contact.company, email: contact.email, phone: contact.phone, type: contact.type },
      { first_name: 'Carla', last_name: 'Customer', company: 'Carla Co', email: 'carla@example.test', phone: '+1 555 0100', type: 'lead' },
    );

    // Add property
    await page.getByRole('button', { name: 'Add property' }).click();
    await page.getByLabel('Street').fill('12 Elm Street');
    await page.getByLabel('City').fill('Springfield');
    await page.getByLabel('State').fill('IL');
    await page.getByLabel('Postal code').fill('62701');
    await page.getByLabel('Country').fill('US');
    await page.getByRole('button', { name: 'Save property' }).click();
    await page.getByText('12 Elm Street, Springfield, IL, 62701').waitFor();
    const props = await get<{ address: { street: string; city: string } }[]>(`/api/v1/contacts/${clientId}/properties`);
    assert.equal(props.length, 1);
    assert.equal(props[0].address.street, '12 Elm Street');

    // New request, then Create quote from it (E6)
    await page.getByRole('link', { name: 'New request' }).click();
    await checkPage(page, 'New request');
    await page.getByLabel('Details').fill('Front lawn is overgrown');
    await page.getByLabel('Preferred date').fill('2026-12-01');
    await page.getByRole('button', { name: 'Save request' }).click();
    await page.waitForURL(/\/app\/requests\/\d+$/);
    const requestId = pathId(page, '/app/requests/');
    const request = await get<{ number: number; contact_id: number; details: string; requested_on: string }>(`/api/v1/requests/${requestId}`);
    assert.equal(request.contact_id, clientId);
    assert.equal(request.details, 'Front lawn is overgrown');
    await checkPage(page, `Request #${request.number}`);
    await page.getByRole('button', { name: 'Create quote' }).click();
    await page.waitForURL(/\/app\/quotes\/\d+\/edit$/);
    const quoteId = pathId(page, '/app/quotes/');
    assert.equal((await get<{ status: string }>(`/api/v1/requests/${requestId}`)).status, 'responded');

    // The editor: one typed line and one from the price book, a tax preset
    await page.getByRole('heading', { level: 1, name: /Edit quote #\d+/ }).waitFor();
    await page.getByLabel('Title').fill('Lawn care');
    await page.getByRole('button', { name: 'Add line item' }).click();
    await page.getByLabel('Name').first().fill('Hedge trimming');
    await page.getByLabel('Quantity').first().fill('3');
    await page.getByLabel('Unit price').first().fill('19.99');
    await page.getByRole('combobox', { name: 'Add from price book' }).click();
    await page.getByRole('combobox', { name: 'Add from price book' }).fill('Lawn');
    await page.getByRole('option', { name: 'Lawn mowing' }).click();
    await page.getByLabel('Name').nth(1).waitFor();
    assert.equal(await page.getByLabel('Name').nth(1).inputValue(), 'Lawn mowing');
    await page.getByRole('combobox', { name: 'Tax rate' }).click();
    await page.getByRole('option', { name: 'State tax (8.25%)' }).click();
    // 3 x 19.99 + 45.50 = 105.47; tax 8.25% = 8.70; total 114.17
    const shownTotal = (await page.locator('[data-total="total"]').first().textContent()) ?? '';
    assert.equal(shownTotal, '$114.17');
    await checkPage(page, (await page.getByRole('heading', { level: 1 }).textContent()) ?? '');
    await page.getByRole('button', { name: 'Save quote' }).click();
    await page.waitForURL(new RegExp(`/app/quotes/${quoteId}$`));
    const quote = await get<{ number: number; total: number; line_items: { name: string }[]; status: string }>(`/api/v1/quotes/${quoteId}`);
    assert.equal(quote.total, 114.17);
    assert.deepEqual(
      quote.line_items.map((l) => l.name),
      ['Hedge trimming', 'Lawn mowing'],
    );
    await checkPage(page, `Quote #${quote.number}`);
    assert.equal(await page.locator('[data-total="total"]').first().textContent(), shownTotal);

    // Send to client: an email in the SMTP server, status awaiting_response
    await page.getByRole('button', { name: 'Send to client' }).click();
    await page.getByText('Queued for carla@example.test.').waitFor();
    const smtp = h.smtp!;
    await waitFor('the quote email', () => smtp.mails.some((m) => m.to.includes('carla@example.test')));
    assert.equal((await get<{ status: string }>(`/api/v1/quotes/${quoteId}`)).status, 'awaiting_response');

    // Mark as accepted, then Convert to job
    await page.getByRole('button', { name: 'Mark as accepted' }).click();
    await page.getByRole('button', { name: 'Convert to job' }).click();
    await page.waitForURL(/\/app\/jobs\/\d+$/);
    const jobId = pathId(page, '/app/jobs/');
    const job = await get<{ number: number; quote_id: number; total: number }>(`/api/v1/jobs/${jobId}`);
    assert.equal(job.quote_id, quoteId);
    assert.equal(job.total, 114.17);
    await checkPage(page, `Job #${job.number}`);

    // Schedule visit (the simple date and time form)
    await page.getByRole('button', { name: 'Schedule visit' }).click();
    await page.getByLabel('Date', { exact: true }).fill('2026-12-02');
    await page.getByLabel('Start time').fill('09:30');
    await page.getByLabel('End time').fill('11:00');
    await page.getByRole('button', { name: 'Save visit' }).click();
    await page.getByRole('table', { name: 'Visits' }).waitFor();
    const visits = await get<{ start_date: string; start_time: string }[]>(`/api/v1/events?job_id=${jobId}`);
    assert.equal(visits.length, 1);
    assert.equal(visits[0].start_date, '2026-12-02');

    // Create invoice, send it, then payments
    await page.getByRole('button', { name: 'Create invoice' }).click();
    await page.waitForURL(/\/app\/invoices\/\d+$/);
    const invoiceId = pathId(page, '/app/invoices/');
    const invoice = await get<{ number: number; job_id: number; total: number; status: string }>(`/api/v1/invoices/${invoiceId}`);
    assert.equal(invoice.job_id, jobId);
    assert.equal(invoice.total, 114.17);
    await checkPage(page, `Invoice #${invoice.number}`);
    await page.getByRole('button', { name: 'Send to client' }).click();
    await page.getByText('Queued for carla@example.test.').waitFor();
    await waitFor('the invoice email', () => smtp.mails.filter((m) => m.to.includes('carla@example.test')).length >= 2);
    assert.equal((await get<{ status: string }>(`/api/v1/invoices/${invoiceId}`)).status, 'sent');

    const pay = async (amount: string) => {
      await page.getByRole('button', { name: 'Record payment' }).click();
      const dialog = page.getByRole('dialog', { name: 'Record payment' });
      await dialog.getByLabel('Amount').fill(amount);
      await dialog.getByRole('combobox', { name: 'Method' }).click();
      await page.getByRole('option', { name: 'Card' }).click();
      await dialog.getByLabel('Reference').fill(`ref ${amount}`);
      await dialog.getByRole('button', { name: 'Save payment' }).click();
      return dialog;
    };
    const tooMuch = await pay('200');
    await tooMuch.getByRole('alert').filter({ hasText: 'Payment exceeds the invoice balance' }).waitFor();
    assert.deepEqual(await get<unknown[]>(`/api/v1/invoices/${invoiceId}/payments`), []);
    assert.deepEqual(await axeViolations(page), [], 'the payment dialog: axe');
    await page.keyboard.press('Escape');
    await tooMuch.waitFor({ state: 'hidden' });

    const first = await pay('100');
    await first.waitFor({ state: 'hidden' });
    await page.getByTestId('balance').filter({ hasText: '$14.17' }).waitFor();
    assert.equal((await get<{ status: string; balance: number }>(`/api/v1/invoices/${invoiceId}`)).status, 'partially_paid');
    const second = await pay('14.17');
    await second.waitFor({ state: 'hidden' });
    await page.getByTestId('balance').filter({ hasText: '$0.00' }).waitFor();
    const paid = await get<{ status: string; balance: number; amount_paid: number }>(`/api/v1/invoices/${invoiceId}`);
    assert.deepEqual({ status: paid.status, balance: paid.balance, amount_paid: paid.amount_paid }, { status: 'paid', balance: 0, amount_paid: 114.17 });
    await page.getByText('Paid', { exact: true }).first().waitFor();

    // Void one payment: E4 moves it back to partially paid
    await page.getByRole('button', { name: 'Void payment of $14.17' }).click();
    await page.getByTestId('balance').filter({ hasText: '$14.17' }).waitFor();
    assert.equal((await get<{ status: string }>(`/api/v1/invoices/${invoiceId}`)).status, 'partially_paid');

    // The client's page shows everything of the client
    await page.goto(`/app/clients/${clientId}`);
    await checkPage(page, 'Carla Customer');
    await page.getByRole('link', { name: `Quote #${quote.number} Lawn care` }).waitFor();
    await page.getByRole('link', { name: `Invoice #${invoice.number}` }).waitFor();
    await page.getByRole('link', { name: `Request #${request.number}` }).waitFor();
    await context.close();
  });

  test('every list at 375 px and 1280 px: its h1, axe clean, no sideways scroll, state in the URL', async () => {
    for (const width of [375, 1280]) {
      const { context, page } = await h.page(width);
      await h.signIn(page, manager);
      for (const [path, title, search] of [
        ['/app/clients', 'Clients', 'Search clients'],
        ['/app/requests', 'Requests', 'Search requests'],
        ['/app/quotes', 'Quotes', 'Search quotes'],
        ['/app/jobs', 'Jobs', 'Search jobs'],
        ['/app/invoices', 'Invoices', 'Search invoices'],
      ] as const) {
        await page.goto(path);
        await checkPage(page, title);
        await page.getByRole('table', { name: title }).waitFor();
        await page.getByRole('searchbox', { name: search }).waitFor();
      }
      await page.goto('/app/quotes/new');
      await checkPage(page, 'New quote');
      await page.goto('/app/clients?tab=lead');
      await page.getByRole('tab', { name: 'Lead', selected: true }).waitFor();
      await context.close();
    }
  });
});

// A8 in a real browser on the production build, checked through the API: at month
// end the office opens "Invoice work" from Invoices (and Home's "Jobs to invoice"),
// selects everyone, ticks "Send to clients" and creates every invoice in one click:
// each visit billed once, clients with an email sent theirs, the summary linking
// each invoice. A quote with a deposit waits for it; "Record deposit" (the "Record
// payment" form) with an amount over the deposit shows the API's error and keeps
// what was typed; paid, the quote is accepted and the deposit is on the job's first
// invoice. "New invoice" on a client's page, "Delete" on a draft, "Void" on a sent one.
// Pages axe-clean with the dialog open, and without sideways scrolling at 375 px.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { addDays } from '../../../src/domain/weeks.ts';
import { axeViolations, checkPage, type Harness, sidewaysOverflow, skipBrowser, startHarness } from './harness.ts';

type Visit = { id: number; status: string; invoice_id: number | null };

describe('billing (browser)', { skip: skipBrowser }, () => {
  let h: Harness;
  let ws: Awaited<ReturnType<Harness['workspace']>>;
  const today = new Date().toISOString().slice(0, 10); // the workspace has no timezone: UTC

  const call = async <T,>(method: 'GET' | 'POST' | 'PUT', url: string, payload?: object): Promise<T> => {
    const res = await h.app.inject({ method, url, payload, headers: { authorization: `Bearer ${ws.token}` } });
    assert.ok(res.statusCode < 300, `${method} ${url}: ${res.body}`);
    return res.json().data as T;
  };
  const signedIn = async (path: string, width = 1280) => {
    const { context, page } = await h.page(width);
    await h.signIn(page, ws.owner, `/app/sign-in?next=${encodeURIComponent(path)}`);
    return { context, page };
  };
  /** A weekly job that started three weeks ago, its first `done` visits completed. */
  async function lawnJob(contactId: number, done: number) {
    const job = await call<{ id: number }>('POST', '/api/v1/jobs', {
      name: `Lawn care ${contactId}`,
      contact_id: contactId,
      type: 'recurring',
      status: 'scheduled',
      line_items: [{ name: 'Mowing', quantity: 1, unitPrice: 55 }],
      tax_rate: 8.25,
      schedule: { rrule: 'FREQ=WEEKLY', starts_on: addDays(today, -21), all_day: true },
    });
    const visits = await call<Visit[]>('GET', `/api/v1/events?job_id=${job.id}&per_page=100&sort_by=start_date&sort_direction=asc`);
    for (const v of visits.slice(0, done)) await call('PUT', `/api/v1/events/${v.id}/status`, { status: 'completed' });
    return job.id;
  }

  before(async () => {
    h = await startHarness();
    ws = await h.workspace('Green Lawns');
  });
  after(() => h?.close());

  test('month end: "Invoice work", "Select all", "Send to clients", "Create invoices": every visit billed once, emailed clients sent theirs', async () => {
    const mailed = (await call<{ id: number }>('POST', '/api/v1/contacts', { first_name: 'Mia', last_name: 'Mailed', email: 'mia@example.test' })).id;
    const paper = (await call<{ id: number }>('POST', '/api/v1/contacts', { first_name: 'Pete', last_name: 'Paper' })).id;
    const jobs = [await lawnJob(mailed, 3), await lawnJob(paper, 2)];
    const { context, page } = await signedIn('/');
    await page.getByRole('link', { name: 'Jobs to invoice' }).waitFor();
    await page.getByRole('link', { name: 'Invoice work' }).click(); // beside Home's "Jobs to invoice"
    await checkPage(page, 'Invoice work');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Invoices' }).click();
    await page.getByRole('main').getByRole('link', { name: 'Invoice work' }).click();
    await checkPage(page, 'Invoice work');
    const table = page.getByRole('table');
    await table.getByRole('cell', { name: 'Mia Mailed', exact: true }).waitFor();
    assert.equal(await table.getByRole('row').count(), 3, 'a header and a row per job');
    await page.getByRole('checkbox', { name: 'Select all' }).check();
    await page.getByRole('checkbox', { name: 'Send to clients' }).check();
    await shot(page, 'billing-batch-1280');
    await page.getByRole('button', { name: 'Create invoices' }).dblclick();
    const summary = page.getByRole('status', { name: 'Invoices created' });
    await summary.getByText('2 invoices created, 1 sent.').waitFor();
    assert.equal(await summary.getByRole('link', { name: /^Invoice #\d+$/ }).count(), 2);
    assert.deepEqual(await axeViolations(page), []);
    // Through the API: one invoice per job, each completed visit billed by it, the emailed client's sent.
    for (const [i, jobId] of jobs.entries()) {
      const invoices = await call<{ id: number; status: string }[]>('GET', `/api/v1/invoices?job_id=${jobId}`);
      assert.equal(invoices.length, 1, 'one invoice per job, double click included');
      assert.equal(invoices[0].status, i === 0 ? 'sent' : 'draft');
      const visits = await call<Visit[]>('GET', `/api/v1/events?job_id=${jobId}&status=completed`);
      assert.ok(visits.length > 0 && visits.every((v) => v.invoice_id === invoices[0].id));
    }
    await summary.getByRole('link').first().click();
    await page.getByRole('heading', { level: 1, name: /^Invoice #\d+$/ }).waitFor();
    await context.close();

    const narrow = await signedIn('/invoices/batch', 375);
    await checkPage(narrow.page, 'Invoice work');
    await narrow.page.getByText(/No work to invoice/).waitFor();
    await shot(narrow.page, 'billing-batch-375');
    await narrow.context.close();
  });

  test('a deposit: the quote waits for it; "Record deposit" shows the API\'s error and keeps the amount; paid, the quote is accepted and the first invoice carries it', async () => {
    const contactId = (await call<{ id: number }>('POST', '/api/v1/contacts', { first_name: 'Dora', last_name: 'Deposit', email: 'dora@example.test' })).id;
    const quote = await call<{ id: number; number: number; deposit_amount: number }>('POST', '/api/v1/quotes', {
      name: 'Patio',
      contact_id: contactId,
      line_items: [{ name: 'Patio', quantity: 1, unitPrice: 2000 }],
      deposit: 25,
    });
    assert.equal(quote.deposit_amount, 500);
    const { context, page } = await signedIn(`/quotes/${quote.id}`);
    await checkPage(page, `Quote #${quote.number}`);
    await page.getByRole('button', { name: 'Mark as accepted' }).click();
    await page.getByRole('button', { name: 'Record deposit' }).click();
    const dialog = page.getByRole('dialog', { name: 'Record deposit' });
    await dialog.getByLabel('Amount').waitFor();
    assert.equal(await dialog.getByLabel('Amount').inputValue(), '500');
    assert.deepEqual(await axeViolations(page), [], 'axe with the dialog open');
    await dialog.getByLabel('Amount').fill('600');
    await dialog.getByRole('button', { name: 'Save payment' }).click();
    await dialog.getByRole('alert').getByText('Payment exceeds the deposit due').waitFor();
    assert.equal(await dialog.getByLabel('Amount').inputValue(), '600', 'what was typed stays');
    await dialog.getByLabel('Amount').fill('500');
    await dialog.getByLabel('Reference').fill('CHK 881');
    await dialog.getByRole('button', { name: 'Save payment' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('button', { name: 'Convert to job' }).waitFor();
    assert.match(await page.getByTestId('deposit-amount').innerText(), /500\.00/);
    const accepted = await call<{ status: string; job: { id: number } }>('GET', `/api/v1/quotes/${quote.id}`);
    assert.equal(accepted.status, 'accepted');
    const invoice = await call<{ amount_paid: number; balance: number; total: number }>('POST', `/api/v1/jobs/${accepted.job.id}/create-invoice`);
    assert.deepEqual([invoice.amount_paid, invoice.balance], [500, invoice.total - 500]);
    await context.close();
  });

  test('"New invoice" on a client\'s page; "Delete" a draft, "Void" a sent one', async () => {
    const contactId = (await call<{ id: number }>('POST', '/api/v1/contacts', { first_name: 'Nia', last_name: 'New', email: 'nia@example.test' })).id;
    const { context, page } = await signedIn(`/clients/${contactId}`);
    await checkPage(page, 'Nia New');
    await page.getByRole('button', { name: 'New invoice' }).dblclick();
    await page.waitForURL(/\/app\/invoices\/\d+\/edit$/);
    const id = Number(/invoices\/(\d+)\/edit/.exec(page.url())![1]);
    assert.equal((await call<{ id: number }[]>('GET', `/api/v1/invoices?contact_id=${contactId}`)).length, 1, 'one invoice for a double click');
    await page.goto(`${h.origin}/app/invoices/${id}`);
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(/\/app\/invoices$/);
    assert.equal((await h.app.inject({ url: `/api/v1/invoices/${id}`, headers: { authorization: `Bearer ${ws.token}` } })).statusCode, 404);

    const sent = await call<{ id: number; number: number }>('POST', '/api/v1/invoices', { contact_id: contactId, status: 'sent', line_items: [{ name: 'Gutter', unitPrice: 80 }] });
    await page.goto(`${h.origin}/app/invoices/${sent.id}`);
    await checkPage(page, `Invoice #${sent.number}`);
    assert.equal(await page.getByRole('button', { name: 'Delete' }).count(), 0, 'a sent invoice is voided, not deleted');
    await page.getByRole('button', { name: 'Void', exact: true }).click();
    await page.getByText('Cancelled').first().waitFor();
    assert.equal((await call<{ status: string }>('GET', `/api/v1/invoices/${sent.id}`)).status, 'cancelled');
    await context.close();

    const narrow = await signedIn(`/invoices/${sent.id}`, 375);
    await checkPage(narrow.page, `Invoice #${sent.number}`);
    await shot(narrow.page, 'billing-invoice-375');
    assert.ok((await sidewaysOverflow(narrow.page)) <= 0);
    await narrow.context.close();
  });
});

/** With SHOTS=<dir>: a full-page screenshot, to look at the page as a person would. */
async function shot(page: Page, name: string): Promise<void> {
  if (process.env.SHOTS) await page.screenshot({ path: `${process.env.SHOTS}/${name}.png`, fullPage: true });
}

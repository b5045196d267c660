// A10 in a real browser on the production build: Reports (its tabs, the figures the
// API gives, the CSV download), "Cost per hour" on Settings -> Team, "Unit cost" in
// the line-item editor and a job's "Expenses", each checked through the API; the
// pages pass axe and fit 375 px; a member has no Reports.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { checkPage, type Harness, skipBrowser, startHarness } from './harness.ts';

describe('Reports (browser)', { skip: skipBrowser }, () => {
  let h: Harness;
  let ws: Awaited<ReturnType<Harness['workspace']>>;
  let jobId: number;
  let today: string;
  before(async () => {
    h = await startHarness();
    ws = await h.workspace('Costwise Plumbing');
    today = new Date().toISOString().slice(0, 10); // the workspace has no timezone: UTC
    const contact = (await h.call(ws.token, 'POST', '/api/v1/contacts', { first_name: 'Ada', last_name: 'Client' })).data;
    const job = (await h.call(ws.token, 'POST', '/api/v1/jobs', { name: 'Boiler swap', contact_id: contact.id, line_items: [{ name: 'Boiler', unitPrice: 900 }] })).data;
    jobId = job.id;
    const inv = (await h.call(ws.token, 'POST', '/api/v1/invoices', { contact_id: contact.id, job_id: job.id, status: 'sent', date: today, due_date: '2020-01-01', line_items: [{ name: 'Boiler', unitPrice: 1234.5 }] })).data;
    await h.call(ws.token, 'POST', `/api/v1/invoices/${inv.id}/payments`, { amount: 234.5, paid_on: today });
  });
  after(() => h?.close());

  const api = async (url: string) => (await h.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${ws.token}` } })).json().data;

  test('Reports: in Main for owners; five tabs with the API\'s figures, charts, Download CSV; axe-clean at 1280 and 375 px', async () => {
    for (const width of [1280, 375]) {
      const { context, page } = await h.page(width);
      await h.signIn(page, ws.owner);
      if (width === 375) await page.goto('/app/reports');
      else await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Reports', exact: true }).click();
      await checkPage(page, 'Reports');
      const month = today.slice(0, 7);
      assert.equal(await page.getByLabel('From').inputValue(), `${month}-01`);
      const revenue = page.locator('table[data-report="revenue"]');
      await revenue.waitFor();
      const [row] = await api('/api/v1/reports/revenue');
      assert.deepEqual([row.invoiced, row.collected], [1234.5, 234.5]);
      assert.match(await revenue.innerText(), /\$1,234\.50[\s\S]*\$234\.50/);
      await page.locator('.recharts-wrapper').first().waitFor(); // revenue by month has its chart
      await page.screenshot({ path: `/tmp/reports-revenue-${width}.png`, fullPage: true });

      // Download CSV: the same rows, from the link the page offers (the session's cookie).
      const href = await page.getByRole('link', { name: 'Download CSV' }).getAttribute('href');
      const csv = await page.request.get(href!);
      assert.equal(csv.status(), 200);
      assert.equal(await csv.text(), `key,label,invoiced,collected\r\n${month},${month},1234.50,234.50\r\n`);

      for (const [tab, report, text] of [
        ['Receivables', 'receivables', /Ada Client[\s\S]*\$1,000\.00/],
        ['Job costing', 'job-costing', /Boiler swap[\s\S]*\$1,234\.50/],
        ['Time', 'time', null],
        ['Quotes', 'quotes', /0\b/],
      ] as const) {
        await page.getByRole('tab', { name: tab }).click();
        if (text) {
          const table = page.locator(`table[data-report="${report}"]`);
          await table.waitFor();
          assert.match(await table.innerText(), text, tab);
        } else await page.getByText('Nothing in this period.').waitFor();
        await checkPage(page, 'Reports');
        if (report === 'receivables') {
          await page.locator('.recharts-wrapper').first().waitFor(); // by age
          await page.screenshot({ path: `/tmp/reports-receivables-${width}.png`, fullPage: true });
        }
      }
      await page.getByRole('tab', { name: 'Revenue' }).click();
      await page.getByLabel('Group by').selectOption('client');
      await page.locator('table[data-report="revenue"]').getByText('Ada Client').waitFor();
      await context.close();
    }
  });

  test("a member has no Reports link, and /app/reports says they don't have access", async () => {
    const member = await h.person(ws.id, 'member');
    const { context, page } = await h.page();
    await h.signIn(page, member);
    await page.waitForURL('**/app/my-day');
    assert.equal(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Reports' }).count(), 0);
    await page.goto('/app/reports');
    await checkPage(page, "You don't have access to reports");
    await context.close();
  });

  test('Team: "Cost per hour"; a line item\'s "Unit cost"; a job\'s "Expenses" with "Add expense" (375 px)', async () => {
    const worker = await h.person(ws.id, 'member');
    const { context, page } = await h.page(375);
    await h.signIn(page, ws.owner);
    await page.goto('/app/settings/team');
    await checkPage(page, 'Team');
    const cost = page.getByLabel(`Cost per hour for ${worker.firstName} ${worker.lastName}`);
    await cost.fill('32.5');
    await cost.blur();
    const rateOf = async () => (await api(`/api/v1/users/${worker.userId}`)).cost_rate;
    for (let i = 0; i < 50 && (await rateOf()) !== 32.5; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(await rateOf(), 32.5);

    await page.goto(`/app/jobs/${jobId}/edit`);
    await page.getByLabel('Unit cost').first().fill('610');
    await page.getByRole('button', { name: 'Save job' }).click();
    await page.waitForURL(`**/app/jobs/${jobId}`);
    assert.equal((await api(`/api/v1/jobs/${jobId}`)).line_items[0].unit_cost, 610);

    const expenses = page.getByRole('region', { name: 'Expenses' });
    await expenses.getByRole('button', { name: 'Add expense' }).click();
    await expenses.getByLabel('Name').fill('Copper pipe');
    await expenses.getByLabel('Amount').fill('0');
    await expenses.getByLabel('Date').fill('2025-03-04');
    await expenses.getByRole('button', { name: 'Save expense' }).click();
    await expenses.getByText(/more than 0/i).first().waitFor(); // the API's 400, on the field, in words (A161)
    await expenses.getByLabel('Amount').fill('48.75');
    await expenses.getByRole('button', { name: 'Save expense' }).click();
    await expenses.getByRole('cell', { name: 'Copper pipe' }).waitFor();
    await checkPage(page, (await page.getByRole('heading', { level: 1 }).innerText()).trim());
    await page.screenshot({ path: '/tmp/reports-job-375.png', fullPage: true });
    const stored = (await api(`/api/v1/jobs/${jobId}`)).expenses;
    assert.deepEqual(stored.map((e: { name: string; amount: number; date: string }) => [e.name, e.amount, e.date]), [['Copper pipe', 48.75, '2025-03-04']]);
    const [costing] = await api('/api/v1/reports/job-costing?from=2025-03-01&to=2025-03-31');
    assert.deepEqual([costing.job_id, costing.expenses, costing.line_costs], [jobId, 48.75, 610]);
    await context.close();
  });
});

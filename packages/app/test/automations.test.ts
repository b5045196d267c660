// A9 in a real browser on the production build: Settings -> "Automations" saves
// through PUT /api/v1/workspace/automations and shows the API's errors by their
// fields; the account page's "Calendar feed" makes a link that serves the
// person's visits, copies it and revokes it. Each page passes A2's checks (one h1,
// axe, no sideways scroll) at 375 and 1280 px; with SHOTS=<dir>, screenshots.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { checkPage, type Harness, skipBrowser, startHarness } from './harness.ts';

describe('Automations and calendar feed (browser)', { skip: skipBrowser }, () => {
  let h: Harness;
  let ws: Awaited<ReturnType<Harness['workspace']>>;
  before(async () => {
    h = await startHarness();
    ws = await h.workspace('Greenleaf Gardens');
  });
  after(async () => {
    await h?.close();
  });

  const shot = async (page: Parameters<typeof checkPage>[0], name: string) => {
    if (process.env.SHOTS) await page.screenshot({ path: `${process.env.SHOTS}/${name}.png`, fullPage: true });
  };
  const automations = async () => (await h.call(ws.token, 'GET', '/api/v1/workspace/automations')).data;

  test('Automations: saved values reach the API; bad days show the API error by their field and change nothing', async () => {
    for (const width of [1280, 375]) {
      const { context, page } = await h.page(width);
      await h.signIn(page, ws.owner);
      await page.goto('/app/settings');
      await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Automations', exact: true }).click();
      await checkPage(page, 'Automations');
      await page.getByLabel('Quote follow-ups (days after sending)').fill('3, 7');
      await page.getByLabel('Invoice reminders (days from due date)').fill('-3, 0, 14');
      await page.getByLabel('Visit reminders (hours before)').fill('24');
      await page.getByRole('button', { name: 'Save automations' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
      assert.deepEqual(await automations(), { quote_follow_up_days: [3, 7], invoice_reminder_days: [-3, 0, 14], visit_reminder_hours: 24 });
      await shot(page, `automations-${width}`);

      // Out of range and repeated: the API's errors by their fields, what was typed kept, nothing saved.
      const quotes = page.getByLabel('Quote follow-ups (days after sending)');
      const invoices = page.getByLabel('Invoice reminders (days from due date)');
      await quotes.fill('3, 61');
      await page.getByRole('button', { name: 'Save automations' }).click();
      await page.getByText('61: must be <= 60').waitFor();
      assert.equal(await quotes.getAttribute('aria-invalid'), 'true');
      assert.equal(await quotes.inputValue(), '3, 61');
      await quotes.fill('3');
      await invoices.fill('5, 5');
      await page.getByRole('button', { name: 'Save automations' }).click();
      await page.getByText('5: repeats 5 (item 0)').waitFor();
      assert.equal(await invoices.getAttribute('aria-invalid'), 'true');
      await shot(page, `automations-errors-${width}`);
      assert.deepEqual(await automations(), { quote_follow_up_days: [3, 7], invoice_reminder_days: [-3, 0, 14], visit_reminder_hours: 24 });
      await context.close();
    }
  });

  test("Automations is not a member's page, and the API refuses them", async () => {
    const member = await h.person(ws.id, 'member');
    const { context, page } = await h.page();
    await h.signIn(page, member);
    await page.goto('/app/settings/automations');
    await page.getByRole('heading', { level: 1, name: "You don't have access to settings" }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Save automations' }).count(), 0);
    await context.close();
  });

  test('Calendar feed: Create calendar link shows a read-only link serving my visits; Copy copies it; Revoke stops it', async () => {
    const person = await h.person(ws.id, 'member');
    const contact = (await h.call(ws.token, 'POST', '/api/v1/contacts', { first_name: 'Grace', last_name: 'Hopper' })).data;
    const job = (await h.call(ws.token, 'POST', '/api/v1/jobs', { name: 'Boiler', contact_id: contact.id })).data;
    const day = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    await h.call(ws.token, 'POST', '/api/v1/events', {
      name: 'Boiler service',
      type: 'appointment',
      job_id: job.id,
      start_date: day,
      end_date: day,
      start_time: '09:30',
      end_time: '11:00',
      assignee_ids: [person.userId],
    });
    for (const width of [1280, 375]) {
      const { context, page } = await h.page(width);
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.origin });
      await h.signIn(page, person);
      await page.goto('/app/account');
      await checkPage(page, 'Account');
      await page.getByRole('heading', { name: 'Calendar feed' }).waitFor();
      await page.getByRole('button', { name: 'Create calendar link' }).click();
      const link = page.getByLabel('Calendar link');
      await link.waitFor();
      assert.equal(await link.getAttribute('readonly'), '');
      const url = await link.inputValue();
      assert.match(url, new RegExp(`^${h.origin}/calendar/[A-Za-z0-9_-]{43}\\.ics$`));
      const feed = await fetch(url);
      assert.equal(feed.status, 200);
      assert.match(await feed.text(), /SUMMARY:Boiler service - Grace Hopper/);
      await page.getByRole('button', { name: 'Copy' }).click();
      await page.getByRole('button', { name: 'Copied' }).waitFor();
      assert.equal(await page.evaluate('navigator.clipboard.readText()'), url);
      await checkPage(page, 'Account'); // with the link shown
      await shot(page, `account-calendar-${width}`);
      await page.getByRole('button', { name: 'Revoke' }).click();
      await page.getByRole('status').filter({ hasText: 'Calendar link revoked' }).waitFor();
      assert.equal((await fetch(url)).status, 404);
      assert.equal(await page.getByLabel('Calendar link').count(), 0);
      await context.close();
    }
  });
});

// A7 in a real browser on the production build, checked through the API: a
// cleaning company's fortnightly client set up once in the job form ("Every 2
// weeks" on Tuesday, the live "Next visits" from schedule-preview), then a visit
// every other Tuesday for a year; the job page's rule in words, "Next visit" and
// visits with "Skip"; a visit moved on the schedule for "Only this visit" (its
// Edit form) and for "This and following visits" (a drag); a bad Custom rule
// refused with the API's words next to "Rule", what was typed kept; the form
// axe-clean and without sideways scrolling at 375 px.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { formatDate } from '../../../src/domain/format.ts';
import { addDays } from '../../../src/domain/weeks.ts';
import { waitFor } from '../../../test/webhook-receiver.ts';
import { axeViolations, checkPage, type Harness, type Person, sidewaysOverflow, skipBrowser, startHarness } from './harness.ts';

type EventRow = { id: number; start_date: string; end_date: string; start_time: string | null; end_time: string | null; status: string; assignee_ids: string[]; occurrence_date: string | null; detached: boolean };
type JobRow = { id: number; type: string; invoicing: string; schedule: { rrule: string; starts_on: string; description: string; next_visit_on: string | null; skipped_dates: string[] } | null };

const weekday = (date: string) => new Date(`${date}T00:00:00Z`).getUTCDay(); // 0 Sunday .. 6 Saturday

describe('recurring work (browser)', { skip: skipBrowser }, () => {
  let h: Harness;
  let ws: Awaited<ReturnType<Harness['workspace']>>;
  let ann: Person;
  let contactId: number;
  let jobId: number;
  const today = new Date().toISOString().slice(0, 10); // the workspace has no timezone: UTC
  // The first Tuesday after today, and the series' dates from it through today + 365 days.
  const firstTuesday = addDays(today, ((2 - weekday(today) + 7) % 7) || 7);
  const fortnights = (from: string) => Array.from({ length: 40 }, (_, i) => addDays(from, 14 * i)).filter((d) => d <= addDays(today, 365));

  const call = async <T,>(method: 'GET' | 'POST' | 'PUT', url: string, payload?: object): Promise<T> => {
    const res = await h.app.inject({ method, url, payload, headers: { authorization: `Bearer ${ws.token}` } });
    assert.ok(res.statusCode < 300, `${method} ${url}: ${res.body}`);
    return res.json().data as T;
  };
  const job = () => call<JobRow>('GET', `/api/v1/jobs/${jobId}`);
  const visits = async () => {
    const rows: EventRow[] = [];
    for (let page = 1; ; page++) {
      const batch = await call<EventRow[]>('GET', `/api/v1/events?job_id=${jobId}&per_page=100&page=${page}&sort_by=start_date&sort_direction=asc`);
      rows.push(...batch);
      if (batch.length < 100) return rows;
    }
  };
  const signedIn = async (path: string, width = 1280) => {
    const { context, page } = await h.page(width);
    await h.signIn(page, ws.owner, `/app/sign-in?next=${encodeURIComponent(path)}`);
    return { context, page };
  };

  before(async () => {
    h = await startHarness();
    ws = await h.workspace('Sparkle Cleaning');
    ann = await h.person(ws.id, 'member');
    contactId = (await call<{ id: number }>('POST', '/api/v1/contacts', { first_name: 'Rosa', last_name: 'Client', email: 'rosa@example.test' })).id;
  });
  after(() => h?.close());

  test('a fortnightly client set up once in the job form: the live "Next visits", then a visit every other Tuesday for a year', async () => {
    const { context, page } = await signedIn(`/jobs/new?client=${contactId}`);
    await checkPage(page, 'New job');
    await page.getByLabel('Title').fill('Fortnightly clean');
    const repeats = page.getByRole('combobox', { name: 'Repeats' });
    assert.deepEqual(
      (await repeats.locator('option').allTextContents()).map((t) => t.trim()),
      ['Never', 'Daily', 'Weekly', 'Every 2 weeks', 'Every 4 weeks', 'Monthly', 'Custom'],
    );
    await repeats.selectOption({ label: 'Every 2 weeks' });
    await page.getByLabel('Starts on').fill(firstTuesday);
    const days = page.getByRole('group', { name: 'On days' });
    for (const d of ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']) await days.getByLabel(d, { exact: true }).setChecked(d === 'Tue');
    const ends = page.getByRole('radiogroup', { name: 'Ends' });
    await ends.getByLabel('On date').check();
    await page.getByLabel('End date').waitFor();
    await ends.getByLabel('After').check();
    await page.getByLabel('Number of visits').waitFor();
    await ends.getByLabel('Never').check();
    await page.getByLabel('Start time').fill('09:00');
    await page.getByLabel('End time').fill('11:00');
    await page.getByRole('group', { name: 'Assigned to' }).getByLabel(`${ann.firstName} ${ann.lastName}`).check();
    await page.getByLabel('Invoicing').selectOption({ label: 'After each visit' });

    // The live region: the rule in words and the next five dates, as the API expands the rule.
    const next = page.getByRole('region', { name: 'Next visits' });
    assert.equal(await next.getAttribute('aria-live'), 'polite');
    await next.getByText('Every 2 weeks on Tuesday').waitFor();
    const expected = fortnights(firstTuesday);
    await waitFor('the five dates', async () => (await next.locator('time').count()) === 5 && (await next.locator('time').first().getAttribute('datetime')) === expected[0]);
    assert.deepEqual(await next.locator('time').evaluateAll((els) => els.map((e) => e.getAttribute('datetime'))), expected.slice(0, 5));
    assert.match((await next.locator('time').first().textContent()) ?? '', new RegExp(formatDate(expected[0])));

    assert.deepEqual(await axeViolations(page), [], 'axe with the schedule open');
    await shot(page, 'recurring-form-1280');
    await page.setViewportSize({ width: 375, height: 740 });
    assert.ok((await sidewaysOverflow(page)) <= 0, 'the job form does not scroll sideways at 375 px');
    await shot(page, 'recurring-form-375');
    await page.setViewportSize({ width: 1280, height: 900 });

    await page.getByRole('button', { name: 'Save job' }).click();
    await waitFor('the job saved', async () => {
      const refused = page.getByRole('alert');
      if (await refused.count()) assert.fail(`refused: ${await refused.allTextContents()}`);
      return /\/app\/jobs\/\d+$/.test(page.url());
    });
    jobId = Number(new URL(page.url()).pathname.split('/').pop());
    await checkPage(page, 'Job #1');
    await page.getByText('Every 2 weeks on Tuesday').waitFor();
    await page.getByText(`Next visit: ${formatDate(expected[0])}`).waitFor();

    const j = await job();
    assert.equal(j.type, 'recurring');
    assert.equal(j.invoicing, 'per_visit');
    assert.ok(j.schedule);
    assert.equal(j.schedule.starts_on, firstTuesday);
    assert.match(j.schedule.rrule, /FREQ=WEEKLY/);
    assert.match(j.schedule.rrule, /INTERVAL=2/);
    assert.match(j.schedule.rrule, /BYDAY=TU/);
    const rows = await visits();
    assert.deepEqual(rows.map((r) => r.start_date), expected, 'every other Tuesday for a year');
    for (const r of rows) {
      assert.deepEqual([r.start_time, r.end_time, r.assignee_ids, r.occurrence_date, r.status], ['09:00', '11:00', [ann.userId], r.start_date, 'scheduled']);
    }
    // The job page lists them with their state of billing.
    const table = page.getByRole('table', { name: 'Visits' });
    await table.getByRole('row').nth(expected.length).waitFor();
    const second = table.getByRole('row', { name: new RegExp(formatDate(expected[1])) });
    await second.getByText('Not billed').waitFor();
    await second.getByText(/9:00\sAM – 11:00\sAM/).waitFor();
    await shot(page, 'recurring-job-1280');
    await page.setViewportSize({ width: 375, height: 740 });
    await checkPage(page, 'Job #1');
    await shot(page, 'recurring-job-375');
    await context.close();
  });

  test('"Skip" on a scheduled visit skips its date for good', async () => {
    const dates = fortnights(firstTuesday);
    const { context, page } = await signedIn(`/jobs/${jobId}`);
    const row = page.getByRole('table', { name: 'Visits' }).getByRole('row', { name: new RegExp(formatDate(dates[1])) });
    await row.getByRole('button', { name: 'Skip' }).click();
    await row.waitFor({ state: 'detached' });
    await page.getByText(`Skipped: ${formatDate(dates[1])}`).waitFor();
    const j = await job();
    assert.deepEqual(j.schedule?.skipped_dates, [dates[1]]);
    const rows = await visits();
    assert.deepEqual(rows.map((r) => r.start_date), dates.filter((d) => d !== dates[1]));
    await context.close();
  });

  test('"Only this visit": a visit moved in its Edit form changes alone', async () => {
    const [first, , third] = fortnights(firstTuesday);
    const { context, page } = await signedIn(`/schedule?view=week&date=${first}`);
    // The calendar names a visit of a series with "Repeats".
    const tile = page.getByRole('button', { name: /Fortnightly clean.*Repeats/ });
    await tile.waitFor();
    await shot(page, 'recurring-schedule-1280');
    await tile.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Fortnightly clean' }).getByRole('button', { name: 'Edit' }).click();
    const form = page.getByRole('dialog', { name: 'Edit visit' });
    await form.getByLabel('Start time').fill('13:00');
    await form.getByLabel('End time').fill('14:30');
    await form.getByRole('button', { name: 'Save visit' }).click();
    await form.getByRole('button', { name: 'This and following visits' }).waitFor();
    assert.deepEqual(await axeViolations(page), [], 'axe with the question open');
    await form.getByRole('button', { name: 'Only this visit' }).click();
    await form.waitFor({ state: 'detached' });
    const rows = await visits();
    const moved = rows.find((r) => r.occurrence_date === first);
    assert.deepEqual([moved?.start_date, moved?.start_time, moved?.end_time, moved?.detached], [first, '13:00', '14:30', true]);
    const later = rows.find((r) => r.occurrence_date === third);
    assert.deepEqual([later?.start_time, later?.end_time, later?.detached], ['09:00', '11:00', false]);
    assert.match((await job()).schedule?.rrule ?? '', /BYDAY=TU/);
    await context.close();
  });

  test('"This and following visits": a visit dragged to Thursday at 10:00 moves the rest of the series', async () => {
    const dates = fortnights(firstTuesday);
    const third = dates[2];
    const thursday = addDays(third, 2);
    const { context, page } = await signedIn(`/schedule?view=week&date=${third}`);
    const tile = page.locator('.fc-event', { hasText: 'Fortnightly clean' });
    await tile.waitFor();
    await dragTo(page, tile, thursday, '10:00:00');
    const question = page.getByRole('dialog', { name: 'Change a repeating visit' });
    await shot(page, 'recurring-question-1280');
    await question.getByRole('button', { name: 'This and following visits' }).click();
    await question.waitFor({ state: 'detached' });
    await waitFor('the series on Thursdays', async () => /BYDAY=TH/.test((await job()).schedule?.rrule ?? ''));
    const j = await job();
    assert.equal(j.schedule?.starts_on, thursday);
    const rows = await visits();
    // Before the moved visit: as they were (the first detached at 13:00, the second skipped).
    assert.deepEqual(
      rows.filter((r) => r.start_date < third).map((r) => [r.start_date, r.start_time]),
      [[dates[0], '13:00']],
    );
    // From it on: every other Thursday at 10:00, two hours long.
    const after = rows.filter((r) => r.start_date >= third);
    assert.deepEqual(after.map((r) => r.start_date), fortnights(thursday));
    for (const r of after) assert.deepEqual([r.start_time, r.end_time, r.detached], ['10:00', '12:00', false]);
    await page.locator(`.fc-timegrid-col[data-date="${thursday}"] .fc-event`, { hasText: 'Fortnightly clean' }).waitFor();
    await context.close();
  });

  test('a bad Custom rule shows the API\'s error next to "Rule" and keeps what was typed; the form at 375 px', async () => {
    const { context, page } = await signedIn(`/jobs/${jobId}/edit`, 375);
    await checkPage(page, 'Edit job #1');
    const repeats = page.getByRole('combobox', { name: 'Repeats' });
    assert.equal(await repeats.locator('option:checked').textContent(), 'Every 2 weeks');
    assert.ok(await page.getByRole('group', { name: 'On days' }).getByLabel('Thu', { exact: true }).isChecked());
    await repeats.selectOption({ label: 'Custom' });
    const rule = page.getByLabel('Rule', { exact: true });
    assert.match(await rule.inputValue(), /FREQ=WEEKLY;INTERVAL=2;BYDAY=TH/);
    await rule.fill('FREQ=WEEKLY;BYDAY=XX');
    await page.getByRole('button', { name: 'Save job' }).click();
    await waitFor('the error by Rule', async () => (await rule.getAttribute('aria-invalid')) === 'true');
    const describedBy = (await rule.getAttribute('aria-describedby')) ?? '';
    const said = await Promise.all(describedBy.split(' ').map((id) => page.locator(`[id="${id}"]`).textContent()));
    assert.ok(said.some((t) => t?.includes('BYDAY') && t.includes('XX')), `the API's words by Rule: ${said.join(' | ')}`);
    assert.equal(await rule.inputValue(), 'FREQ=WEEKLY;BYDAY=XX');
    assert.ok((await sidewaysOverflow(page)) <= 0, 'no sideways scrolling at 375 px');
    assert.deepEqual(await axeViolations(page), []);
    await shot(page, 'recurring-rule-error-375');
    assert.match((await job()).schedule?.rrule ?? '', /BYDAY=TH/, 'nothing written');
    await context.close();
  });
});

/** With SHOTS=<dir>: a full-page screenshot, to look at the page as a person would. */
async function shot(page: Page, name: string): Promise<void> {
  if (process.env.SHOTS) await page.screenshot({ path: `${process.env.SHOTS}/${name}.png`, fullPage: true });
}

/** Drags a FullCalendar event onto the time-grid slot of `date` at `time` with the mouse. */
async function dragTo(page: Page, from: ReturnType<Page['locator']>, date: string, time: string): Promise<void> {
  await from.scrollIntoViewIfNeeded();
  const col = await page.locator(`.fc-timegrid-col[data-date="${date}"]`).boundingBox();
  const slot = page.locator(`.fc-timegrid-slot-lane[data-time="${time}"]`);
  await slot.scrollIntoViewIfNeeded();
  const b = await slot.boundingBox();
  const src = await from.boundingBox();
  assert.ok(col && b && src, 'the event and the slot are on screen');
  await page.mouse.move(src.x + src.width / 2, src.y + 4);
  await page.mouse.down();
  await page.mouse.move(src.x + src.width / 2 + 5, src.y + 10, { steps: 3 });
  await page.mouse.move(col.x + col.width / 2, b.y + 2, { steps: 8 });
  await page.mouse.up();
}

// A11 in a real browser: Settings -> "Import" reads the file's header into a mapping
// table, "Preview" (a dry run) shows the counts and the row errors and writes nothing,
// "Import" shows its progress and result and the clients exist; a file the API refuses
// shows its error by "File" with the file kept. Settings -> "Export" reaches "Download
// export", a ZIP. Members without access get the refused page.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { axeViolations, checkPage, type Harness, type Person, skipBrowser, startHarness } from './harness.ts';

describe('Import and Export pages (browser)', { skip: skipBrowser }, () => {
  let h: Harness;
  let ws: Awaited<ReturnType<Harness['workspace']>>;
  let admin: Person;
  let dir: string;
  const get = async <T,>(url: string): Promise<T> => (await h.call(ws.token, 'GET', url)).data as T;
  const csv = (name: string, text: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  };
  const count = (page: Page, label: string) => page.locator(`dd[data-count="${label}"]`).textContent();

  before(async () => {
    h = await startHarness({ worker: true });
    ws = await h.workspace('Moving Pages Co');
    admin = await h.person(ws.id, 'admin');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-import-'));
  });
  after(async () => {
    await h?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('a CSV through the page: mapping, preview with the bad row, import with progress, the clients exist', async () => {
    const { context, page } = await h.page(1280);
    await h.signIn(page, admin, '/app/sign-in?next=%2Fsettings');
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Import' }).click();
    await checkPage(page, 'Import');
    assert.equal(await page.getByRole('radio', { name: 'Clients' }).isChecked(), true);
    await page.getByRole('radio', { name: 'Price book' }).waitFor();
    const file = csv(
      'clients.csv',
      'First Name;Surname;E-mail;Town;Organisation name\n"Ada";Lovelace;ada@pages.test;London;Engines Ltd\nBob;Bad;not-an-email;Leeds;\nCy;Clark;cy@pages.test;York;Clark & Co\n',
    );
    await page.getByLabel('File').setInputFiles(file);
    // The header's own matching (the API's) is each column's default; no match is "Skip".
    const column = (name: string) => page.getByRole('combobox', { name: `Map column ${name}` });
    await column('First Name').waitFor();
    assert.deepEqual(
      await Promise.all(['First Name', 'Surname', 'E-mail', 'Town', 'Organisation name'].map((c) => column(c).inputValue())),
      ['First name', 'Last name', 'Email', 'City', 'Skip'],
    );
    // A column mapped by hand, with its list open: axe passes.
    await column('Organisation name').click();
    await page.getByRole('option', { name: 'Company', exact: true }).waitFor();
    assert.deepEqual(await axeViolations(page), [], 'axe with the mapping list open');
    await page.getByRole('option', { name: 'Company', exact: true }).click();
    assert.equal(await column('Organisation name').inputValue(), 'Company');

    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByRole('heading', { name: 'Preview' }).waitFor({ timeout: 30_000 });
    assert.deepEqual([await count(page, 'Would create'), await count(page, 'Would update'), await count(page, 'Would skip')], ['2', '0', '1']);
    const errors = page.getByRole('table', { name: 'Rows with errors' });
    assert.deepEqual(
      (await errors.getByRole('row').nth(1).getByRole('cell').allTextContents()).map((t) => t.trim()),
      ['3', 'Email', 'Enter an email like name@example.com'],
    );
    assert.deepEqual(await get<unknown[]>('/api/v1/contacts?search=pages.test'), [], 'a preview writes nothing');
    assert.deepEqual(await axeViolations(page), [], 'axe with the preview shown');

    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByRole('heading', { name: 'Result' }).waitFor({ timeout: 30_000 });
    const progress = page.getByRole('progressbar', { name: 'Import progress' });
    assert.equal(await progress.getAttribute('aria-valuenow'), '100');
    assert.deepEqual([await count(page, 'Created'), await count(page, 'Updated'), await count(page, 'Skipped')], ['2', '0', '1']);
    await page.screenshot({ path: '/tmp/moving-import-1280.png', fullPage: true });
    const made = await get<{ first_name: string; last_name: string; company: string }[]>('/api/v1/contacts?search=pages.test&sort_by=first_name');
    assert.deepEqual(
      made.map((c) => [c.first_name, c.last_name, c.company]).sort(),
      [
        ['Ada', 'Lovelace', 'Engines Ltd'],
        ['Cy', 'Clark', 'Clark & Co'],
      ],
    );
    await context.close();
  });

  test('a file the API refuses: its error by "File", the file kept; at 375 px', async () => {
    const { context, page } = await h.page(375);
    await h.signIn(page, admin, '/app/sign-in?next=%2Fsettings%2Fimport');
    await checkPage(page, 'Import');
    await page.getByRole('radio', { name: 'Price book' }).check();
    const input = page.getByLabel('File');
    await input.setInputFiles(csv('services.csv', 'Name,Unit price,Notes\n'));
    await page.getByRole('combobox', { name: 'Map column Unit price' }).waitFor();
    assert.equal(await page.getByRole('combobox', { name: 'Map column Unit price' }).inputValue(), 'Price');
    await page.getByRole('combobox', { name: 'Map column Notes' }).click();
    await page.getByRole('option', { name: 'Description' }).waitFor();
    assert.deepEqual(await axeViolations(page), [], 'axe with the mapping list open at 375 px');
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.waitForFunction(() => document.querySelector('input[type="file"][aria-invalid="true"]') !== null);
    assert.match((await page.getByText('File has no rows below its header').textContent()) ?? '', /no rows/);
    assert.equal(await input.evaluate((el) => (el as HTMLInputElement).files?.[0]?.name), 'services.csv', 'the chosen file stays');
    await page.screenshot({ path: '/tmp/moving-import-375.png', fullPage: true });
    await context.close();
  });

  for (const width of [375, 1280]) {
    test(`"Export workspace" reaches "Download export", a ZIP (${width} px)`, async () => {
      const { context, page } = await h.page(width);
      await h.signIn(page, admin, '/app/sign-in?next=%2Fsettings%2Fexport');
      await checkPage(page, 'Export');
      await page.getByRole('button', { name: 'Export workspace' }).click();
      const link = page.getByRole('link', { name: 'Download export' });
      await link.waitFor({ timeout: 60_000 });
      const res = await page.request.get((await link.getAttribute('href')) ?? '');
      assert.equal(res.status(), 200);
      assert.equal((await res.body()).subarray(0, 2).toString('latin1'), 'PK');
      assert.deepEqual(await axeViolations(page), []);
      await page.screenshot({ path: `/tmp/moving-export-${width}.png`, fullPage: true });
      await context.close();
    });
  }

  test('a manager is told in words that Import and Export are not theirs', async () => {
    const manager = await h.person(ws.id, 'manager');
    const { context, page } = await h.page(1280);
    await h.signIn(page, manager, '/app/sign-in?next=%2Fsettings%2Fimport');
    await checkPage(page, "You don't have access to settings");
    await page.goto('/app/settings/export');
    await checkPage(page, "You don't have access to settings");
    await context.close();
  });
});

// A11 in a real browser: the client form makes a client and their first property in
// one submission (the API's error by its field, nothing half-made, what was typed kept),
// and "Export CSV" on a list downloads every row of it from the API.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { checkPage, type Harness, type Person, skipBrowser, startHarness } from './harness.ts';

describe('moving in and out (browser)', { skip: skipBrowser }, () => {
  let h: Harness;
  let ws: Awaited<ReturnType<Harness['workspace']>>;
  let owner: Person;
  const get = async <T,>(url: string): Promise<T> => (await h.call(ws.token, 'GET', url)).data as T;

  before(async () => {
    h = await startHarness();
    ws = await h.workspace('Moving Co');
    owner = await h.person(ws.id, 'admin');
  });
  after(() => h?.close());

  for (const width of [375, 1280]) {
    test(`the client form makes the client and their property in one submission (${width} px)`, async () => {
      const { context, page } = await h.page(width);
      await h.signIn(page, owner, '/app/sign-in?next=%2Fclients%2Fnew');
      await checkPage(page, 'New client');
      const last = `Mover${width}`;
      await page.getByLabel('First name').fill('Mia');
      await page.getByLabel('Last name').fill(last);
      await page.getByRole('textbox', { name: 'Street', exact: true }).fill('9 Harbour Rd');
      await page.getByRole('textbox', { name: 'City' }).fill('Portsmouth');
      const postal = page.getByRole('textbox', { name: 'Postal code' });
      await postal.fill('P'.repeat(40));
      await page.getByRole('button', { name: 'Save client' }).click();
      await page.getByRole('alert').first().waitFor();
      await page.waitForFunction(() => document.querySelector('input[aria-invalid="true"]') !== null);
      assert.equal(await postal.getAttribute('aria-invalid'), 'true', "the API's error by its field");
      assert.equal(await page.getByRole('textbox', { name: 'City' }).inputValue(), 'Portsmouth', 'what was typed stays');
      assert.deepEqual(await get<unknown[]>(`/api/v1/contacts?search=${last}`), [], 'no client without its property');
      await postal.fill('PO1 2AB');
      await page.getByRole('button', { name: 'Save client' }).click();
      await page.waitForURL(/\/clients\/\d+$/);
      const [client] = await get<{ id: number }[]>(`/api/v1/contacts?search=${last}`);
      const [property] = await get<{ address: Record<string, string> }[]>(`/api/v1/contacts/${client.id}/properties`);
      assert.deepEqual([property.address.street, property.address.city, property.address.postal_code], ['9 Harbour Rd', 'Portsmouth', 'PO1 2AB']);
      await page.screenshot({ path: `/tmp/moving-client-${width}.png`, fullPage: true });
      await context.close();
    });
  }

  test('"Export CSV" on a list downloads every row of it, with its tab', async () => {
    const { context, page } = await h.page(1280);
    await h.signIn(page, owner, '/app/sign-in?next=%2Fclients');
    await checkPage(page, 'Clients');
    const link = page.getByRole('link', { name: 'Export CSV' });
    const href = (await link.getAttribute('href')) ?? '';
    assert.match(href, /^\/api\/v1\/contacts\?format=csv/);
    const res = await page.request.get(href);
    assert.equal(res.status(), 200);
    const csv = await res.text();
    assert.match(csv.split('\r\n')[0], /^id,workspace_id,first_name,last_name/);
    assert.ok(csv.includes('Mover375') && csv.includes('Mover1280'));
    const leads = new URL(page.url());
    leads.searchParams.set('tab', 'lead');
    await page.goto(leads.toString());
    assert.match((await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href')) ?? '', /type=lead/);
    await page.screenshot({ path: '/tmp/moving-clients-1280.png' });
    await context.close();
  });
});

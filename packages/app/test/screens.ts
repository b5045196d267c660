// Screenshots of the pages at 375 and 1280 px (for looking at them): npx tsx packages/app/test/screens.ts
import { startHarness } from './harness.ts';
const h = await startHarness();
const ws = await h.workspace('Greenleaf Gardens');
const c = (await h.call(ws.token, 'POST', '/api/v1/contacts', { first_name: 'Dana', last_name: 'Reyes' })).data;
await h.call(ws.token, 'POST', '/api/v1/requests', { name: 'Fix fence', contact_id: c.id });
const inv = (await h.call(ws.token, 'POST', '/api/v1/invoices', { name: 'Spring', status: 'overdue', line_items: [{ name: 'Work', unitPrice: 500, quantity: 1 }] })).data;
await h.call(ws.token, 'POST', `/api/v1/invoices/${inv.id}/payments`, { amount: 200, method: 'card', paid_on: new Date().toISOString().slice(0, 10) });
for (const width of [375, 1280]) {
  const { context, page } = await h.page(width);
  await page.goto('/app/sign-in');
  await page.getByRole('heading', { level: 1 }).waitFor();
  await page.screenshot({ path: `/tmp/shot-signin-${width}.png` });
  await h.signIn(page, ws.owner);
  await page.getByText('Recent activity').waitFor();
  await page.waitForTimeout(800);
  await page.screenshot({ path: `/tmp/shot-home-${width}.png`, fullPage: true });
  if (width === 375) {
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.waitForTimeout(400);
    await page.screenshot({ path: `/tmp/shot-menu-${width}.png` });
  }
  await context.close();
}
await h.close();

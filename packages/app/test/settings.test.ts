// A5 in a real browser on the production build: the Settings pages of owners
// and admins, each checked by A2 (one h1, axe, no sideways scroll at 375 px),
// and what they do checked through the API: a Company edit reaches GET
// /api/v1/workspace, a key made in the page works as a Bearer key until Revoke.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { leaves, parseMime } from '../../../test/smtp-receiver.ts';
import { png } from '../../../test/upload-fixtures.ts';
import { type Receiver, startReceiver, waitFor } from '../../../test/webhook-receiver.ts';
import { checkPage, type Harness, PASSWORD, skipBrowser, startHarness } from './harness.ts';

describe('Settings (browser)', { skip: skipBrowser }, () => {
  let h: Harness;
  let ws: Awaited<ReturnType<Harness['workspace']>>;
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
    // The receiver listens on loopback: private URLs allowed for this test server only.
    h = await startHarness({ mail: true, env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    ws = await h.workspace('Greenleaf Gardens');
  });
  after(async () => {
    await h?.close();
    await receiver?.close();
  });

  /** The texts that describe `field` (aria-describedby): where its error shows. */
  const describedBy = async (page: Parameters<typeof checkPage>[0], field: ReturnType<Parameters<typeof checkPage>[0]['getByLabel']>) => {
    const ids = ((await field.getAttribute('aria-describedby')) ?? '').split(' ').filter(Boolean);
    return ids.length ? (await page.locator(ids.map((id) => `[id="${id}"]`).join(', ')).allTextContents()).join(' | ') : '';
  };

  const bearer = async (token: string) =>
    (await h.app.inject({ method: 'GET', url: '/api/v1/contacts', headers: { authorization: `Bearer ${token}` } })).statusCode;

  test('the Settings navigation leads to each page; each has its one h1, passes axe and fits 375 and 1280 px', async () => {
    for (const width of [1280, 375]) {
      const { context, page } = await h.page(width);
      await h.signIn(page, ws.owner);
      await page.goto('/app/settings');
      await checkPage(page, 'Settings');
      const nav = page.getByRole('navigation', { name: 'Settings' });
      for (const [link, h1] of [
        ['Company', 'Company'],
        ['Team', 'Team'],
        ['Webhooks', 'Webhooks'],
        ['Notifications', 'Notifications'],
        ['Messages', 'Messages'],
        ['Tax rates', 'Tax rates'],
        ['Price book', 'Price book'],
        ['Quote templates', 'Quote templates'],
        ['Custom fields', 'Custom fields'],
        ['API keys', 'API keys'],
      ] as const) {
        await nav.getByRole('link', { name: link, exact: true }).click();
        await checkPage(page, h1);
      }
      await page.getByRole('button', { name: 'New API key' }).click();
      await page.getByRole('button', { name: 'Create key' }).waitFor();
      await checkPage(page, 'API keys'); // with the form open
      await nav.getByRole('link', { name: 'Quote templates', exact: true }).click();
      await page.getByRole('button', { name: 'New template' }).click();
      await page.getByRole('button', { name: 'Add line item' }).click();
      await checkPage(page, 'Quote templates'); // the line-item editor open
      await context.close();
    }
  });

  test('Company: an edit shows in GET /api/v1/workspace; a bad value shows the API error by its field and keeps what was typed', async () => {
    const { context, page } = await h.page();
    await h.signIn(page, ws.owner);
    await page.goto('/app/settings/company');
    await checkPage(page, 'Company');
    await page.getByLabel('Name', { exact: true }).fill('Greenleaf Landscaping');
    await page.getByLabel('Industry').fill('Landscaping');
    await page.getByLabel('Address').fill('12 Elm Street\nSpringfield');
    await page.getByLabel('Phone').fill('555-0100');
    await page.getByLabel('Email', { exact: true }).fill('office@greenleaf.test');
    await page.getByLabel('Website').fill('https://greenleaf.test');
    await page.getByLabel('Tax or licence number').fill('LIC-4411');
    await page.getByLabel('Reply-to email').fill('replies@greenleaf.test');
    // Chosen from the list (A163).
    await page.getByLabel('Time zone').selectOption('America/Chicago');
    await page.getByLabel('Week starts on').selectOption('sunday');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    const w = (await h.call(ws.token, 'GET', '/api/v1/workspace')).data;
    assert.deepEqual(
      [w.name, w.industry, w.address, w.phone, w.email, w.website, w.tax_number, w.reply_to, w.timezone, w.week_start],
      ['Greenleaf Landscaping', 'Landscaping', '12 Elm Street\nSpringfield', '555-0100', 'office@greenleaf.test', 'https://greenleaf.test', 'LIC-4411', 'replies@greenleaf.test', 'America/Chicago', 'sunday'],
    );
    // The Account menu names the workspace by its new name (the session's /me is read again).
    await page.getByRole('button', { name: 'Account' }).click();
    await page.getByText('Olive Owner · Greenleaf Landscaping').waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('menu').waitFor({ state: 'detached' });

    const website = page.getByLabel('Website');
    await website.fill('greenleaf dot test');
    await page.getByLabel('Industry').fill('Gardens');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('alert').filter({ hasText: 'Check the highlighted fields.' }).waitFor();
    assert.equal(await website.getAttribute('aria-invalid'), 'true');
    const described = (await website.getAttribute('aria-describedby')) ?? '';
    const errorText = await page.locator(described.split(' ').map((id) => `[id="${id}"]`).join(', ')).allTextContents();
    assert.ok(errorText.some((t) => /^Website must be an http\(s\) address/.test(t)), `the field's error: ${errorText.join(' | ')}`);
    assert.equal(await website.inputValue(), 'greenleaf dot test');
    assert.equal(await page.getByLabel('Industry').inputValue(), 'Gardens');
    const after = (await h.call(ws.token, 'GET', '/api/v1/workspace')).data;
    assert.deepEqual([after.website, after.industry], ['https://greenleaf.test', 'Landscaping'], 'nothing changed');
    assert.deepEqual(await page.getByRole('heading', { level: 1 }).allTextContents(), ['Company']);
    await context.close();
  });

  test('Company "Logo": an SVG is refused by the input; a PNG previews and reaches GET /api/v1/workspace; "Remove logo" clears it', async () => {
    const { context, page } = await h.page();
    await h.signIn(page, ws.owner);
    await page.goto('/app/settings/company');
    await page.getByText('No logo yet.').waitFor();
    const logo = page.getByLabel('Logo', { exact: true });
    await logo.setInputFiles({ name: 'logo.svg', mimeType: 'image/svg+xml', buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>') });
    await page.getByText(/must be a PNG or JPEG image/).waitFor();
    assert.equal(await logo.getAttribute('aria-invalid'), 'true');
    const described = (await logo.getAttribute('aria-describedby')) ?? '';
    const errorText = await page.locator(described.split(' ').map((id) => `[id="${id}"]`).join(', ')).allTextContents();
    assert.ok(errorText.some((t) => /PNG or JPEG/.test(t)), errorText.join(' | '));
    assert.equal((await h.call(ws.token, 'GET', '/api/v1/workspace')).data.logo_url, null, 'nothing changed');

    await logo.setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: png(40, 20, 9) });
    const preview = page.getByRole('img', { name: 'Current logo' });
    await preview.waitFor();
    const url = (await h.call(ws.token, 'GET', '/api/v1/workspace')).data.logo_url;
    assert.match(url, /\/files\/public\/\d+\/[0-9a-f]{32}\.png$/);
    assert.equal(await preview.getAttribute('src'), url);
    await page.waitForFunction(() => (document.querySelector('img[alt="Current logo"]') as HTMLImageElement | null)?.naturalWidth === 40);
    assert.equal(await logo.getAttribute('aria-invalid'), null, 'the error is gone');
    await checkPage(page, 'Company');

    await page.getByRole('button', { name: 'Remove logo' }).click();
    await page.getByText('No logo yet.').waitFor();
    assert.equal((await h.call(ws.token, 'GET', '/api/v1/workspace')).data.logo_url, null);
    await context.close();
  });

  test('API keys: the key created in the page is shown once, works as a Bearer key, and gets 401 after Revoke', async () => {
    const { context, page } = await h.page();
    await h.signIn(page, ws.owner);
    await page.goto('/app/settings/keys');
    await checkPage(page, 'API keys');
    await page.getByRole('button', { name: 'New API key' }).click();
    await page.getByLabel('Name').fill('Accounting sync');
    await page.getByLabel('Type').selectOption('rest');
    await page.getByLabel('Scopes').fill('contacts:read, jobs:read');
    await page.getByRole('button', { name: 'Create key' }).click();
    const field = page.getByRole('textbox', { name: 'Your new key' });
    await field.waitFor();
    assert.equal(await field.getAttribute('readonly'), '');
    const token = await field.inputValue();
    assert.ok(token.length > 20, token);
    await page.getByRole('button', { name: 'Copy' }).waitFor();
    const row = page.getByRole('row').filter({ hasText: 'Accounting sync' });
    await row.waitFor();
    assert.equal(await row.getByText('Never').count(), 1, 'never used yet');

    assert.equal(await bearer(token), 200);
    const keys = (await (await page.request.get('/api/v1/keys')).json()).data as { name: string; scopes: string[]; type: string }[]; // a session's list: keys get 403
    const made = keys.find((k) => k.name === 'Accounting sync');
    assert.deepEqual([made?.type, made?.scopes], ['rest', ['contacts:read', 'jobs:read']]);

    // Shown once: after a reload the token is nowhere on the page.
    await page.reload();
    await row.waitFor();
    assert.equal(await page.getByRole('textbox', { name: 'Your new key' }).count(), 0);
    assert.equal(await page.getByText(token).count(), 0);
    assert.equal(await row.getByText('Never').count(), 0, 'last used is shown');

    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.waitFor({ state: 'detached' });
    assert.equal(await bearer(token), 401);
    await context.close();
  });

  test('a bad scope shows the API error by the Scopes field; nothing is created', async () => {
    const { context, page } = await h.page();
    await h.signIn(page, ws.owner);
    await page.goto('/app/settings/keys');
    await page.getByRole('button', { name: 'New API key' }).click();
    await page.getByLabel('Name').fill('Broken');
    await page.getByLabel('Scopes').fill('nothing:here');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('alert').first().waitFor();
    assert.equal(await page.getByLabel('Scopes').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByLabel('Scopes').inputValue(), 'nothing:here');
    const keys = (await (await page.request.get('/api/v1/keys')).json()).data as { name: string }[];
    assert.equal(keys.filter((k) => k.name === 'Broken').length, 0);
    await context.close();
  });

  /** The setup links of the emails to `email`, oldest first. */
  const setupLinks = (email: string) =>
    h.smtp!.mails
      .filter((m) => m.to.includes(email))
      .map((m) => leaves(parseMime(m.raw)).map((p) => p.body).join('\n'))
      .map((text) => new RegExp(`${h.origin.replace(/[.]/g, '\\.')}(/app/setup/[\\w-]+)`).exec(text)?.[1] ?? '');

  test('Team: an invite sent from the page emails a setup link; the person sets a password and signs in as a member; Resend, Cancel, a role change, Remove', async () => {
    const { context, page } = await h.page();
    await h.signIn(page, ws.owner);
    await page.goto('/app/settings/team');
    await checkPage(page, 'Team');
    await page.getByRole('button', { name: 'Invite team member' }).click();
    await page.getByLabel('Email').fill('new.hire@example.test');
    await page.getByLabel('Role').selectOption('member');
    await page.getByRole('button', { name: 'Send invite' }).click();
    const pending = page.getByRole('table', { name: 'Pending invites' }).getByRole('row').filter({ hasText: 'new.hire@example.test' });
    await pending.waitFor();
    await checkPage(page, 'Team');
    await waitFor('the invite email', () => setupLinks('new.hire@example.test').length === 1);
    const first = setupLinks('new.hire@example.test')[0];
    assert.ok(first, 'a setup link in the email');

    await pending.getByRole('button', { name: 'Resend' }).click();
    await page.getByRole('status').filter({ hasText: 'A new invite email for new.hire@example.test is in the message log.' }).waitFor();
    await waitFor('the second email', () => setupLinks('new.hire@example.test').length === 2);
    const link = setupLinks('new.hire@example.test')[1];
    assert.ok(link && link !== first, 'a fresh link');

    // The invited person, in their own browser.
    const joiner = await h.page(375);
    await joiner.page.goto(link);
    await checkPage(joiner.page, 'Set up your account');
    await joiner.page.getByLabel('First name').fill('Nia');
    await joiner.page.getByLabel('Last name').fill('Hire');
    await joiner.page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await joiner.page.getByRole('button', { name: 'Create account' }).click();
    await joiner.page.waitForURL('**/app/my-day'); // a member's home
    await joiner.context.close();
    const again = await h.page();
    await h.signIn(again.page, { email: 'new.hire@example.test', password: PASSWORD });
    await again.page.waitForURL('**/app/my-day');
    const me = (await (await again.page.request.get('/api/v1/me')).json()).data;
    assert.equal(me.user.role, 'member');
    await again.context.close();

    // Joined: a member now, no longer pending.
    await page.reload();
    const row = page.getByRole('table', { name: 'Members' }).getByRole('row').filter({ hasText: 'Nia Hire' });
    await row.waitFor();
    assert.equal(await page.getByRole('table', { name: 'Pending invites' }).count(), 0);
    await row.getByRole('combobox', { name: 'Nia Hire' }).selectOption('manager');
    await waitFor('the role change', async () => (await (await page.request.get('/api/v1/users?search=Nia')).json()).data[0]?.role === 'manager');

    // Cancel an invite.
    await page.getByRole('button', { name: 'Invite team member' }).click();
    await page.getByLabel('Email').fill('maybe@example.test');
    await page.getByRole('button', { name: 'Send invite' }).click();
    const maybe = page.getByRole('row').filter({ hasText: 'maybe@example.test' });
    await maybe.getByRole('button', { name: 'Cancel' }).click();
    await maybe.waitFor({ state: 'detached' });
    assert.deepEqual((await (await page.request.get('/api/v1/team/invites')).json()).data, []);

    // Remove the member: they are gone from the list and cannot sign in here.
    await row.getByRole('button', { name: 'Remove' }).click();
    await row.waitFor({ state: 'detached' });
    const users = (await (await page.request.get('/api/v1/users')).json()).data as { email: string }[];
    assert.ok(!users.some((u) => u.email === 'new.hire@example.test'));

    // The last owner stays: the API's 409 shows as its message.
    await page.getByRole('row').filter({ hasText: '(you)' }).getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('alert').first().waitFor();
    await context.close();
  });

  test('Webhooks: a webhook made in the page delivers to a local receiver, shows in the log, Redeliver sends it again; filter; Delete', async () => {
    const { context, page } = await h.page();
    await h.signIn(page, ws.owner);
    await page.goto('/app/settings/webhooks');
    await checkPage(page, 'Webhooks');
    await page.getByRole('button', { name: 'New webhook' }).click();
    await page.getByLabel('URL').fill(receiver.url('/ok?from=settings'));
    await page.getByLabel('Event').selectOption('new_contact');
    await page.getByRole('button', { name: 'Save webhook' }).click();
    const secret = await page.getByRole('textbox', { name: 'Signing secret' }).inputValue();
    assert.ok(secret.length > 10);
    const sub = page.getByRole('table', { name: 'Subscriptions' }).getByRole('row').filter({ hasText: receiver.url('/ok?from=settings') });
    await sub.waitFor();
    await checkPage(page, 'Webhooks');

    const contact = (await h.call(ws.token, 'POST', '/api/v1/contacts', { first_name: 'Hook', last_name: 'Test' })).data;
    await waitFor('the delivery', () => receiver.received.some((r) => r.path === '/ok'));
    const first = receiver.received.filter((r) => r.path === '/ok');
    assert.deepEqual([first.length, first[0].body.event, first[0].body.data.id], [1, 'new_contact', contact.id]);

    const log = page.getByRole('table', { name: 'Deliveries' });
    const row = log.getByRole('row').filter({ hasText: 'New contact' });
    await row.filter({ hasText: 'Delivered' }).waitFor(); // the log follows the background delivery
    assert.deepEqual((await row.getByRole('cell').allTextContents()).slice(0, 4), ['New contact', 'Delivered', '1', '200']);
    await checkPage(page, 'Webhooks');

    await row.getByRole('button', { name: 'Redeliver' }).click();
    await page.getByRole('status').filter({ hasText: 'Queued for delivery again.' }).waitFor();
    await waitFor('the redelivery', () => receiver.received.filter((r) => r.path === '/ok').length === 2);
    assert.equal(receiver.received.filter((r) => r.path === '/ok')[1].body.data.id, contact.id);

    await page.getByLabel('Status').selectOption('failed');
    await page.getByText('No deliveries with this status.').waitFor();
    await page.getByLabel('Status').selectOption('delivered');
    await log.getByRole('row').filter({ hasText: 'New contact' }).first().waitFor();

    await sub.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No webhooks yet.').waitFor();
    const list = (await (await page.request.get('/api/webhooks/list')).json()).subscriptions;
    assert.deepEqual(list, []);
    await context.close();
  });

  test('Notifications: a template edit shows in the live preview and changes the next customer email; a bad placeholder is refused by its field', async () => {
    const { context, page } = await h.page();
    await h.signIn(page, ws.owner);
    await page.goto('/app/settings/notifications');
    await checkPage(page, 'Notifications');
    assert.equal(await page.getByLabel('Notification', { exact: true }).inputValue(), 'quote_to_customer');
    const subject = page.getByLabel('Subject');
    await subject.fill('Your quote {{number}} for {{contact_first_name}}');
    await page.getByLabel('Text', { exact: true }).fill('Hi {{contact_first_name}}, your quote is ready: {{link}}');
    await waitFor('the preview', async () => /^Your quote \S+ for \S+$/.test((await page.locator('[data-preview="subject"]').textContent()) ?? ''));
    // The preview follows each field as it is typed: the text's may land after the subject's.
    await waitFor('the text preview', async () => /^Hi \S+, your quote is ready: http/.test((await page.locator('[data-preview="text"]').textContent()) ?? ''));
    await checkPage(page, 'Notifications');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();

    const contact = (await h.call(ws.token, 'POST', '/api/v1/contacts', { first_name: 'Mia', last_name: 'Customer', email: 'mia@example.test' })).data;
    const quote = (await h.call(ws.token, 'POST', '/api/v1/quotes', { contact_id: contact.id, name: 'Gutters', line_items: [{ name: 'Clean', unitPrice: 90, quantity: 1 }] })).data;
    await h.call(ws.token, 'POST', '/api/v1/notifications', { type: 'quote_to_customer', module_id: quote.id });
    await waitFor('the quote email', () => h.smtp!.mails.some((m) => m.to.includes('mia@example.test')));
    const mail = h.smtp!.mails.find((m) => m.to.includes('mia@example.test'))!;
    const text = leaves(parseMime(mail.raw)).map((p) => p.body).join('\n');
    assert.match(text, /Hi Mia, your quote is ready: http/);
    const [message] = (await (await page.request.get('/api/v1/messages?per_page=1')).json()).data;
    assert.equal(message.subject, `Your quote ${quote.number} for Mia`);

    await page.reload();
    assert.equal(await subject.inputValue(), 'Your quote {{number}} for {{contact_first_name}}');
    await subject.fill('Hello {{nope}}');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('alert').filter({ hasText: 'Check the highlighted fields.' }).waitFor();
    assert.equal(await subject.getAttribute('aria-invalid'), 'true');
    assert.equal(await subject.inputValue(), 'Hello {{nope}}');
    const [saved] = (await (await page.request.get('/api/v1/notification-settings')).json()).data;
    assert.equal(saved.templates.subject, 'Your quote {{number}} for {{contact_first_name}}', 'nothing changed');

    // Messages: the email in the log with its status; the filters. The refused edit is
    // unsaved: leaving asks first (A162), and the answer is to leave.
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Messages' }).click();
    await checkPage(page, 'Messages');
    const row = page.getByRole('table', { name: 'Messages' }).getByRole('row').filter({ hasText: 'mia@example.test' });
    await row.filter({ hasText: 'Sent' }).waitFor();
    assert.ok(await row.filter({ hasText: `Your quote ${quote.number} for Mia` }).count());
    await page.getByLabel('Channel').selectOption('sms');
    await page.getByText('No messages like that.').waitFor();
    await page.getByLabel('Channel').selectOption('email');
    await page.getByLabel('Status').selectOption('sent');
    await row.waitFor();
    await context.close();
  });

  test('Tax rates: a rate added in the page is in GET /api/v1/tax-rates; a missing rate is asked for by its field; Delete', async () => {
    const { context, page } = await h.page();
    await h.signIn(page, ws.owner);
    await page.goto('/app/settings/tax-rates');
    await checkPage(page, 'Tax rates');
    await page.getByRole('button', { name: 'New tax rate' }).click();
    await page.getByLabel('Name').fill('State sales tax');
    await page.getByRole('button', { name: 'Save tax rate' }).click();
    await page.getByText('Enter a rate').waitFor();
    assert.equal(await page.getByLabel('Rate (%)').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByLabel('Name').inputValue(), 'State sales tax');
    assert.deepEqual((await h.call(ws.token, 'GET', '/api/v1/tax-rates')).data, []);
    await page.getByLabel('Rate (%)').fill('8.25');
    await page.getByRole('button', { name: 'Save tax rate' }).click();
    const row = page.getByRole('table', { name: 'Tax rates' }).getByRole('row').filter({ hasText: 'State sales tax' });
    await row.filter({ hasText: '8.25%' }).waitFor();
    const [rate] = (await h.call(ws.token, 'GET', '/api/v1/tax-rates')).data;
    assert.deepEqual([rate.name, rate.rate], ['State sales tax', 8.25]);
    await checkPage(page, 'Tax rates');

    // Edit: the same form, filled with the row; the API's refusal by its field; then saved with PUT.
    await row.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('form', { name: 'Edit tax rate' });
    assert.equal(await edit.getByLabel('Name').inputValue(), 'State sales tax');
    assert.equal(await edit.getByLabel('Rate (%)').inputValue(), '8.25');
    await edit.getByLabel('Name').fill('');
    await edit.getByRole('button', { name: 'Save tax rate' }).click();
    await page.getByRole('alert').filter({ hasText: 'Check the highlighted fields.' }).waitFor();
    assert.equal(await edit.getByLabel('Name').getAttribute('aria-invalid'), 'true');
    assert.equal((await h.call(ws.token, 'GET', '/api/v1/tax-rates')).data[0].name, 'State sales tax', 'nothing changed');
    await edit.getByLabel('Name').fill('County sales tax');
    await edit.getByLabel('Rate (%)').fill('6.5');
    await checkPage(page, 'Tax rates');
    await edit.getByRole('button', { name: 'Save tax rate' }).click();
    await edit.waitFor({ state: 'detached' });
    const edited = page.getByRole('table', { name: 'Tax rates' }).getByRole('row').filter({ hasText: 'County sales tax' });
    await edited.filter({ hasText: '6.5%' }).waitFor();
    const [changed] = (await h.call(ws.token, 'GET', '/api/v1/tax-rates')).data;
    assert.deepEqual([changed.id, changed.name, changed.rate], [rate.id, 'County sales tax', 6.5]);
    await edited.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No tax rates yet.').waitFor();
    assert.deepEqual((await h.call(ws.token, 'GET', '/api/v1/tax-rates')).data, []);
    await context.close();
  });

  test('Price book: an item added in the page is in GET /api/v1/services with its price; the API error by its field; Delete', async () => {
    const { context, page } = await h.page();
    await h.signIn(page, ws.owner);
    await page.goto('/app/settings/price-book');
    await checkPage(page, 'Price book');
    await page.getByRole('button', { name: 'New item' }).click();
    await page.getByLabel('Unit price').fill('45.5');
    await page.getByRole('button', { name: 'Save item' }).click();
    await page.getByRole('alert').filter({ hasText: 'Check the highlighted fields.' }).waitFor();
    assert.equal(await page.getByLabel('Name').getAttribute('aria-invalid'), 'true');
    assert.deepEqual((await h.call(ws.token, 'GET', '/api/v1/services')).data, []);
    await page.getByLabel('Name').fill('Lawn mowing');
    await page.getByRole('button', { name: 'Save item' }).click();
    const row = page.getByRole('table', { name: 'Price book' }).getByRole('row').filter({ hasText: 'Lawn mowing' });
    await row.filter({ hasText: '$45.50' }).waitFor();
    const [item] = (await h.call(ws.token, 'GET', '/api/v1/services')).data;
    assert.deepEqual([item.name, item.price, item.type], ['Lawn mowing', 45.5, 'service']);
    await checkPage(page, 'Price book');

    // Edit: the same form, filled with the row, saved with PUT.
    await row.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('form', { name: 'Edit item' });
    assert.equal(await edit.getByLabel('Name').inputValue(), 'Lawn mowing');
    await edit.getByLabel('Name').fill('Mulch');
    await edit.getByLabel('Unit price').fill('12.25');
    await edit.getByLabel('Kind').selectOption('product');
    await edit.getByRole('button', { name: 'Save item' }).click();
    await edit.waitFor({ state: 'detached' });
    const edited = page.getByRole('table', { name: 'Price book' }).getByRole('row').filter({ hasText: 'Mulch' });
    await edited.filter({ hasText: '$12.25' }).waitFor();
    const [changed] = (await h.call(ws.token, 'GET', '/api/v1/services')).data;
    assert.deepEqual([changed.id, changed.name, changed.price, changed.type], [item.id, 'Mulch', 12.25, 'product']);
    await edited.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No items yet.').waitFor();
    await context.close();
  });

  test('Quote templates: a template made in the page (line items, discount, tax rate, deposit, message) is in the API with the total the page showed; Edit; the API error by its field; Delete', async () => {
    const rate = (await h.call(ws.token, 'POST', '/api/v1/tax-rates', { name: 'Template tax', rate: 5 })).data;
    const { context, page } = await h.page();
    await h.signIn(page, ws.owner);
    await page.goto('/app/settings/quote-templates');
    await checkPage(page, 'Quote templates');
    await page.getByText('No quote templates yet.').waitFor();
    await page.getByRole('button', { name: 'New template' }).click();
    const form = page.getByRole('form', { name: 'New template' });
    await form.getByRole('button', { name: 'Add line item' }).click();
    await form.getByRole('button', { name: 'Add line item' }).click();
    const line1 = form.getByRole('group', { name: 'Line item 1' });
    const line2 = form.getByRole('group', { name: 'Line item 2' });
    await line1.getByLabel('Name').fill('Mulch');
    await line1.getByLabel('Quantity').fill('3');
    await line1.getByLabel('Unit price').fill('40');
    await line2.getByLabel('Name').fill('Edging');
    await line2.getByLabel('Unit price').fill('25');
    await line2.getByLabel('Taxable').uncheck();
    await form.getByLabel('Discount', { exact: true }).fill('10');
    await form.getByRole('combobox', { name: 'Tax rate' }).click();
    await page.getByRole('option', { name: 'Template tax (5%)' }).click();
    await form.getByLabel('Deposit').fill('20');
    await form.getByLabel('Message').fill('Thanks for asking us.');
    await checkPage(page, 'Quote templates');

    // No template name: the API's refusal shows by the field; what was typed stays.
    await form.getByRole('button', { name: 'Save template' }).click();
    await page.getByRole('alert').filter({ hasText: 'Check the highlighted fields.' }).waitFor();
    const name = form.getByLabel('Template name');
    assert.equal(await name.getAttribute('aria-invalid'), 'true');
    assert.ok((await describedBy(page, name)).length > 0, 'the error text is tied to the field');
    assert.equal(await line1.getByLabel('Name').inputValue(), 'Mulch');
    assert.deepEqual((await h.call(ws.token, 'GET', '/api/v1/quote-templates')).data, [], 'nothing created');

    await name.fill('Spring cleanup');
    const shown = (await form.locator('[data-total="total"]').textContent()) ?? '';
    await form.getByRole('button', { name: 'Save template' }).click();
    await form.waitFor({ state: 'detached' });
    const row = page.getByRole('table', { name: 'Quote templates' }).getByRole('row').filter({ hasText: 'Spring cleanup' });
    await row.filter({ hasText: shown }).waitFor();
    const [t] = (await h.call(ws.token, 'GET', '/api/v1/quote-templates')).data;
    assert.deepEqual(
      t.line_items.map((i: { name: string; quantity: number; unitPrice: number; taxable: boolean }) => [i.name, i.quantity, i.unitPrice, i.taxable]),
      [
        ['Mulch', 3, 40, true],
        ['Edging', 1, 25, false],
      ],
    );
    assert.deepEqual([t.template_name, t.discount, t.discount_unit, t.tax_rate_id, t.tax_rate, t.deposit, t.message], ['Spring cleanup', 10, '%', rate.id, 5, 20, 'Thanks for asking us.']);
    // 145 less 10% is 130.50; tax on the taxable 120 less 10%: 5.40.
    assert.equal(t.total, 135.9);
    assert.equal(shown, '$135.90', 'the total the page showed is the one stored');
    await checkPage(page, 'Quote templates');

    // Edit: the same form, filled; the API's refusal by its field; then PUT.
    await row.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('form', { name: 'Edit template' });
    assert.equal(await edit.getByLabel('Template name').inputValue(), 'Spring cleanup');
    assert.equal(await edit.getByRole('group', { name: 'Line item 2' }).getByLabel('Name').inputValue(), 'Edging');
    await edit.getByLabel('Template name').fill('');
    await edit.getByRole('button', { name: 'Save template' }).click();
    await page.getByRole('alert').filter({ hasText: 'Check the highlighted fields.' }).waitFor();
    assert.equal(await edit.getByLabel('Template name').getAttribute('aria-invalid'), 'true');
    assert.equal((await h.call(ws.token, 'GET', '/api/v1/quote-templates')).data[0].template_name, 'Spring cleanup', 'nothing changed');
    await edit.getByLabel('Template name').fill('Autumn cleanup');
    await edit.getByRole('group', { name: 'Line item 1' }).getByLabel('Quantity').fill('4');
    await edit.getByRole('button', { name: 'Remove line 2' }).click();
    const shownAfter = (await edit.locator('[data-total="total"]').textContent()) ?? '';
    await edit.getByRole('button', { name: 'Save template' }).click();
    await edit.waitFor({ state: 'detached' });
    const edited = page.getByRole('table', { name: 'Quote templates' }).getByRole('row').filter({ hasText: 'Autumn cleanup' });
    await edited.filter({ hasText: shownAfter }).waitFor();
    const [changed] = (await h.call(ws.token, 'GET', '/api/v1/quote-templates')).data;
    assert.deepEqual([changed.id, changed.template_name, changed.line_items.length, changed.line_items[0].quantity], [t.id, 'Autumn cleanup', 1, 4]);
    // 160 less 10% is 144; tax 5% of 144: 7.20.
    assert.deepEqual([changed.total, shownAfter], [151.2, '$151.20']);

    await edited.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No quote templates yet.').waitFor();
    assert.deepEqual((await h.call(ws.token, 'GET', '/api/v1/quote-templates')).data, []);
    await h.app.inject({ method: 'DELETE', url: `/api/v1/tax-rates/${rate.id}`, headers: { authorization: `Bearer ${ws.token}` } });
    await context.close();
  });

  test('Custom fields: a select field added in the page is in GET /api/v1/custom-fields; Edit of its label, options and required, the API errors by their fields; Delete', async () => {
    const { context, page } = await h.page();
    await h.signIn(page, ws.owner);
    await page.goto('/app/settings/custom-fields');
    await checkPage(page, 'Custom fields');
    await page.getByRole('button', { name: 'New custom field' }).click();
    await page.getByLabel('Record').selectOption('job');
    await page.getByLabel('Label').fill('Gate code');
    await page.getByLabel('Key', { exact: true }).fill('gate');
    await page.getByLabel('Type', { exact: true }).selectOption('select');
    await page.getByLabel('Options').fill('North, South');
    await page.getByLabel('Required').check();
    await page.getByRole('button', { name: 'Save field' }).click();
    const row = page.getByRole('table', { name: 'Custom fields' }).getByRole('row').filter({ hasText: 'Gate code' });
    await row.waitFor();
    const [field] = (await h.call(ws.token, 'GET', '/api/v1/custom-fields')).data;
    assert.deepEqual([field.module_type, field.key, field.type, field.options, field.required], ['job', 'gate', 'select', ['North', 'South'], true]);
    await checkPage(page, 'Custom fields');

    // Edit: label, options and required; the key, record and type stay.
    await row.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('form', { name: 'Edit custom field' });
    assert.equal(await edit.getByLabel('Label').inputValue(), 'Gate code');
    assert.equal(await edit.getByLabel('Options').inputValue(), 'North, South');
    assert.equal(await edit.getByLabel('Required').isChecked(), true);
    assert.equal(await edit.getByLabel('Key', { exact: true }).count(), 0, 'the key cannot change');
    await checkPage(page, 'Custom fields');
    // No options left: the API's refusal by the Options field; what was typed stays.
    await edit.getByLabel('Label').fill('Gate side');
    await edit.getByLabel('Options').fill('');
    await edit.getByRole('button', { name: 'Save field' }).click();
    await page.getByRole('alert').filter({ hasText: 'Check the highlighted fields.' }).waitFor();
    assert.equal(await edit.getByLabel('Options').getAttribute('aria-invalid'), 'true');
    assert.ok((await describedBy(page, edit.getByLabel('Options'))).length > 0, 'the error text is tied to the field');
    assert.equal(await edit.getByLabel('Label').inputValue(), 'Gate side');
    // A blank label: refused by its field.
    await edit.getByLabel('Options').fill('North, South, East');
    await edit.getByLabel('Label').fill('  ');
    await edit.getByRole('button', { name: 'Save field' }).click();
    await waitFor('the label error', async () => (await edit.getByLabel('Label').getAttribute('aria-invalid')) === 'true');
    assert.match(await describedBy(page, edit.getByLabel('Label')), /Enter a label/);
    const unchanged = (await h.call(ws.token, 'GET', '/api/v1/custom-fields')).data[0];
    assert.deepEqual([unchanged.label, unchanged.options, unchanged.required], ['Gate code', ['North', 'South'], true], 'nothing changed');
    await edit.getByLabel('Label').fill('Gate side');
    await edit.getByLabel('Required').uncheck();
    await edit.getByRole('button', { name: 'Save field' }).click();
    await edit.waitFor({ state: 'detached' });
    const edited = page.getByRole('table', { name: 'Custom fields' }).getByRole('row').filter({ hasText: 'Gate side' });
    await edited.filter({ hasText: 'North, South, East' }).waitFor();
    const [changed] = (await h.call(ws.token, 'GET', '/api/v1/custom-fields')).data;
    assert.deepEqual(
      [changed.id, changed.key, changed.module_type, changed.type, changed.label, changed.options, changed.required],
      [field.id, 'gate', 'job', 'select', 'Gate side', ['North', 'South', 'East'], false],
    );

    await edited.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No custom fields yet.').waitFor();
    await context.close();
  });

  test('a manager does not get Settings', async () => {
    const manager = await h.person(ws.id, 'manager');
    const { context, page } = await h.page();
    await h.signIn(page, manager);
    await page.goto('/app/settings/keys');
    await checkPage(page, "You don't have access to settings");
    assert.equal(await page.getByRole('button', { name: 'New API key' }).count(), 0);
    await context.close();
  });
});

// A1 in a real browser on the production build: sign-in (right and wrong
// password, back to the page asked for), sign out and in again, the setup link
// from `fieldwork user link`, forgot and reset password through the email the
// SMTP server received, "Sign out everywhere", and the lockout message.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { waitFor } from '../../../test/webhook-receiver.ts';
import { leaves, parseMime } from '../../../test/smtp-receiver.ts';
import { checkPage, type Harness, PASSWORD, skipBrowser, startHarness } from './harness.ts';

describe('sign-in and sessions (browser)', { skip: skipBrowser }, () => {
  let h: Harness;
  let ws: Awaited<ReturnType<Harness['workspace']>>;
  before(async () => {
    h = await startHarness({ mail: true });
    ws = await h.workspace('Greenleaf Gardens');
  });
  after(() => h?.close());

  test('a page asked for while signed out: sign-in first, wrong password refused, then back to that page', async () => {
    const { context, page } = await h.page(375);
    await page.goto('/app/clients?tab=lead');
    await page.waitForURL(/\/app\/sign-in\?next=/);
    await checkPage(page, 'Sign in');
    await page.getByLabel('Email').fill(ws.owner.email);
    await page.getByLabel('Password', { exact: true }).fill('not the password at all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Email or password is incorrect').waitFor();
    // A wrong email reads the same (no account enumeration).
    await page.getByLabel('Email').fill('nobody@example.test');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Email or password is incorrect').waitFor();
    assert.equal(await page.getByLabel('Email').inputValue(), 'nobody@example.test'); // what was typed is kept
    await page.getByLabel('Email').fill(ws.owner.email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/app/clients?tab=lead');
    await checkPage(page, 'Clients');
    await context.close();
  });

  test('sign out from the Account menu, then sign in again lands on Home', async () => {
    const { context, page } = await h.page();
    await h.signIn(page, ws.owner);
    await checkPage(page, 'Home');
    await page.getByRole('button', { name: 'Account' }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.waitForURL('**/app/sign-in');
    // The session is gone on the server too: reloading a page asks to sign in.
    await page.goto('/app/account');
    await page.waitForURL(/\/app\/sign-in\?next=%2Faccount/);
    await page.getByLabel('Email').fill(ws.owner.email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/app/account');
    await checkPage(page, 'Account');
    await context.close();
  });

  test('setup link: "First name", "Last name", "Password", "Create account" signs in and lands on Home', async () => {
    const invited = await h.person(ws.id, 'manager', { setUp: false });
    const path = await h.setupPath(ws.id, invited.userId);
    const { context, page } = await h.page(375);
    await page.goto(path);
    await checkPage(page, 'Set up your account');
    await page.getByLabel('First name').fill('Maya');
    await page.getByLabel('Last name').fill('Manager');
    await page.getByLabel('Password', { exact: true }).fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    // Checked before sending; the message sits by its field.
    const password = page.getByLabel('Password', { exact: true });
    assert.equal(await password.getAttribute('aria-invalid'), 'true');
    await password.fill(invited.email); // 10+ characters, but the email itself: refused by the server, next to the field
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('alert').filter({ hasText: 'Check the highlighted fields.' }).waitFor();
    assert.equal(await password.getAttribute('aria-invalid'), 'true');
    const describedBy = await password.getAttribute('aria-describedby');
    assert.ok(describedBy && (await page.locator(`[id="${describedBy.split(' ').pop()}"]`).textContent()), 'the error is tied to its field');
    assert.equal(await page.getByLabel('First name').inputValue(), 'Maya');
    await password.fill('a new long password');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL((u) => u.pathname === '/app' || u.pathname === '/app/');
    await checkPage(page, 'Home');
    // The link was single use.
    await page.goto(path);
    await page.getByRole('alert').filter({ hasText: 'Invalid or expired link' }).waitFor();
    await context.close();
  });

  test('a person with a password joins another workspace from its setup link with "Join workspace", then picks between them', async () => {
    const other = await h.workspace('Bluewater Pools');
    const existing = await h.person(other.id, 'admin', { setUp: false, email: ws.owner.email });
    const path = await h.setupPath(other.id, existing.userId);
    const { context, page } = await h.page();
    await page.goto(path);
    await page.getByRole('link', { name: 'Sign in to join' }).click();
    await page.getByLabel('Email').fill(ws.owner.email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Join workspace' }).click();
    await page.waitForURL((u) => u.pathname === '/app' || u.pathname === '/app/');
    await checkPage(page, 'Home');
    await page.getByRole('button', { name: 'Account' }).click();
    await page.getByRole('menuitem', { name: 'Switch workspace' }).click();
    await checkPage(page, 'Choose a workspace');
    await page.getByRole('button', { name: /Greenleaf Gardens/ }).click();
    await page.waitForURL((u) => u.pathname === '/app' || u.pathname === '/app/');
    await page.getByRole('button', { name: 'Account' }).click();
    await page.getByText('Olive Owner · Greenleaf Gardens').waitFor();
    await context.close();
  });

  test('forgot password: the same answer for anyone; the emailed link sets a new password, signs in and ends other sessions', async () => {
    const member = await h.person(ws.id, 'member');
    const other = await h.page();
    await h.signIn(other.page, member);
    const { context, page } = await h.page(375);
    await page.goto('/app/sign-in');
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await checkPage(page, 'Reset your password');
    await page.getByLabel('Email').fill('nobody@example.test');
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByText('If an account exists for that email, a link to reset the password is on its way.').waitFor();
    await page.reload();
    await page.getByLabel('Email').fill(member.email);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByText('If an account exists for that email, a link to reset the password is on its way.').waitFor();
    const smtp = h.smtp!;
    await waitFor('the reset email', () => smtp.mails.some((m) => m.to.includes(member.email)));
    assert.ok(!smtp.mails.some((m) => m.to.includes('nobody@example.test')));
    const text = leaves(parseMime(smtp.mails.find((m) => m.to.includes(member.email))!.raw))
      .map((p) => p.body)
      .join('\n');
    const link = new RegExp(`${h.origin.replace(/[.]/g, '\\.')}(/app/reset-password/[\\w-]+)`).exec(text)?.[1];
    assert.ok(link, `a reset link in: ${text.slice(0, 300)}`);
    await page.goto(link);
    await checkPage(page, 'Set a new password');
    await page.getByLabel('New password').fill('a brand new password');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.waitForURL('**/app/my-day'); // a member's home
    await checkPage(page, 'My day');
    // The other browser's session ended.
    await other.page.reload();
    await other.page.waitForURL(/\/app\/sign-in/);
    await other.context.close();
    await context.close();
  });

  test('"Sign out everywhere" on /app/account ends every session of the person', async () => {
    const manager = await h.person(ws.id, 'manager');
    const a = await h.page();
    const b = await h.page();
    await h.signIn(a.page, manager);
    await h.signIn(b.page, manager);
    await a.page.goto('/app/account');
    await a.page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await a.page.waitForURL('**/app/sign-in');
    await b.page.goto('/app/clients');
    await b.page.waitForURL(/\/app\/sign-in\?next=%2Fclients/);
    await a.context.close();
    await b.context.close();
  });

  // Last: the lockout also counts failures per client address.
  test('lockout: after 10 wrong passwords, "Too many attempts, try again later"', async () => {
    const victim = await h.person(ws.id, 'manager');
    const { context, page } = await h.page();
    await page.goto('/app/sign-in');
    await page.getByLabel('Email').fill(victim.email);
    await page.getByLabel('Password', { exact: true }).fill('wrong wrong wrong');
    for (let i = 0; i < 10; i++) {
      const answer = page.waitForResponse((r) => r.url().endsWith('/api/auth/sign-in'));
      await page.getByRole('button', { name: 'Sign in' }).click();
      assert.equal((await answer).status(), i < 8 ? 401 : (await answer).status());
    }
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD); // even the right one
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Too many attempts, try again later').waitFor();
    assert.match(page.url(), /\/app\/sign-in/);
    await context.close();
  });
});

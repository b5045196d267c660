import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { now } from '../../db/json.ts';
import type { DB } from '../../db/schema.ts';
import type { AuthContext } from '../../http/auth.ts';
import type { AppContext } from '../../http/context.ts';
import { scopesOfRole } from '../../http/roles.ts';
import { csrfTokenOf, newSessionToken } from '../../http/sessions.ts';
import { AppError, type Detail, invalidField, ValidationError } from '../../kernel/errors.ts';
import { hashPassword, passwordProblem, verifyPassword } from '../../kernel/passwords.ts';
import { hashToken } from '../../kernel/tokens.ts';
import { queueMessage } from '../../outbox/messages.ts';
import {
  accountWithMemberships,
  deleteSessionsOf,
  findAccount,
  findLink,
  insertLink,
  insertSession,
  type MembershipRow,
  membershipsOf,
  memberWithWorkspace,
  moveSession,
  oldestMembership,
  pruneSessionsOf,
  savePassword,
  setMemberNames,
  useLink,
} from './accounts.repo.ts';
import { findUser } from '../users/users.repo.ts';
import type { SignInLimiter } from './sign-in-limiter.ts';

export const WRONG_PASSWORD = 'Email or password is incorrect';
export const SETUP_LINK_TTL_MS = 7 * 86_400_000; // A1: setup links are valid 7 days
export const RESET_LINK_TTL_MS = 3_600_000; // A1: reset links 1 hour

const invalidLink = () => new AppError(400, 'Invalid or expired link');
const wrongPassword = () => new AppError(401, WRONG_PASSWORD);
export const normalEmail = (email: string) => email.trim().toLowerCase();

type Member = Pick<MembershipRow, 'member_id' | 'user_id' | 'email' | 'first_name' | 'last_name' | 'role'>;
type WithWorkspace = Member & { [K in keyof MembershipRow as K extends `workspace_${string}` ? K : never]: MembershipRow[K] };

/** APP.md A1 `GET /api/v1/me`: the acting member, the workspace, the scopes, the person's workspaces. */
export function meView(memberships: WithWorkspace[], current: Member & { workspace_id: number }, scopes: readonly string[], csrfToken?: string) {
  const here = memberships.find((m) => m.workspace_id === current.workspace_id);
  if (!here) throw new AppError(401, 'Not signed in');
  return {
    user: { id: current.user_id, first_name: current.first_name, last_name: current.last_name, email: current.email, role: current.role },
    workspace: {
      id: here.workspace_id,
      name: here.workspace_name,
      slug: here.workspace_slug,
      industry: here.workspace_industry,
      industry_key: here.workspace_industry_key,
      country: here.workspace_country,
      currency: here.workspace_currency,
      timezone: here.workspace_timezone,
      about: here.workspace_about,
    },
    scopes: [...scopes],
    ...(csrfToken ? { csrf_token: csrfToken } : {}),
    workspaces: memberships.map((m) => ({ id: m.workspace_id, name: m.workspace_name, role: m.role })),
  };
}
export type Me = ReturnType<typeof meView>;

/** `GET /api/v1/me` for a key or a session: a key sees only its own workspace (A15). */
export async function me(db: Kysely<DB>, auth: AuthContext): Promise<Me> {
  const rows = await membershipsOf(db, auth.workspaceId, auth.userId, !auth.session);
  const current = rows.find((r) => r.workspace_id === auth.workspaceId);
  if (!current) throw new AppError(401, 'Not signed in');
  return meView(rows, current, auth.scopes, auth.session?.csrfToken);
}

/** A new session of `accountId` acting as the member `memberId`; returns its token (for the cookie only). */
async function startSession(db: Kysely<DB>, ctx: AppContext, accountId: number, memberId: number): Promise<string> {
  const token = newSessionToken();
  const at = new Date();
  await insertSession(db, {
    token_hash: hashToken(token),
    account_id: accountId,
    user_id: memberId,
    created_at: at.toISOString(),
    last_seen_at: at.toISOString(),
    expires_at: new Date(at.getTime() + ctx.config.sessionTtl).toISOString(),
  });
  return token;
}

export interface SignedIn {
  me: Me;
  /** The session token, set as the cookie; never in a body. */
  token: string;
}

/**
 * A1 sign-in: one password hash whatever the email (an unknown one is checked
 * against a hash no password matches), at most 4 statements; the session acts
 * as the person's oldest membership until they switch (A16). Locked out
 * addresses and emails are refused before any of it (A17).
 */
export async function signIn(ctx: AppContext, limiter: SignInLimiter, input: { email: string; password: string; ip: string }): Promise<SignedIn> {
  const email = normalEmail(input.email);
  await limiter.check(email, input.ip);
  const rows = await accountWithMemberships(ctx.db, email);
  const ok = await verifyPassword(input.password, rows[0]?.password_hash ?? null);
  const first = rows.find((r) => r.member_id !== null);
  if (!ok || !first || first.member_id === null || first.workspace_id === null) {
    await limiter.failed(email, input.ip);
    throw wrongPassword();
  }
  await limiter.succeeded(email);
  const memberId = first.member_id;
  const accountId = first.account_id;
  const token = await startSession(ctx.db, ctx, accountId, memberId);
  const at = Date.now();
  await pruneSessionsOf(ctx.db, accountId, new Date(at).toISOString(), new Date(at - ctx.config.sessionIdle).toISOString());
  const memberships = rows.flatMap((r) => (r.member_id === null || r.workspace_id === null ? [] : [{ ...r, member_id: r.member_id, workspace_id: r.workspace_id }]));
  const current = memberships[0];
  return { token, me: meView(memberships as WithWorkspace[], current as WithWorkspace, scopesOfRole(current.role ?? ''), csrfTokenOf(token)) };
}

/** A1 "Sign out everywhere": every session of the person, this one included. */
export async function signOutEverywhere(db: Kysely<DB>, auth: AuthContext): Promise<void> {
  if (auth.session) await deleteSessionsOf(db, auth.session.accountId);
}

/** `POST /api/auth/switch-workspace`: the session acts as the person's membership in that workspace. */
export async function switchWorkspace(db: Kysely<DB>, auth: AuthContext, workspaceId: number): Promise<Me> {
  if (!auth.session) throw new AppError(401, 'Not signed in');
  const rows = await membershipsOf(db, auth.workspaceId, auth.userId, false);
  const target = rows.find((r) => r.workspace_id === workspaceId);
  if (!target) throw new AppError(404, 'Workspace not found'); // another person's workspace is simply not found
  await moveSession(db, auth.session.id, target.member_id);
  return meView(rows, target, scopesOfRole(target.role), auth.session.csrfToken);
}

/** A random link token: 256 bits, stored only as its SHA-256. */
const newLinkToken = () => randomBytes(32).toString('base64url');

export const setupUrl = (publicUrl: string, token: string) => `${publicUrl}/app/setup/${token}`;
export const resetUrl = (publicUrl: string, token: string) => `${publicUrl}/app/reset-password/${token}`;

/**
 * A1: a fresh setup link for a member (the CLI's `setup_url`, team invites):
 * single use, valid 7 days, stored only as a hash. `userId` is the member's UUID;
 * run it in the transaction that creates the member, or on its own.
 */
export async function mintSetupLink(db: Kysely<DB>, workspaceId: number, userId: string, publicUrl: string): Promise<{ url: string; expires_at: string }> {
  const member = await findUser(db, workspaceId, userId);
  if (!member) throw new AppError(404, 'User not found');
  const token = newLinkToken();
  const at = new Date();
  const expires = new Date(at.getTime() + SETUP_LINK_TTL_MS).toISOString();
  await insertLink(db, { workspace_id: workspaceId, user_id: member.id, kind: 'setup', token_hash: hashToken(token), expires_at: expires, used_at: null, created_at: at.toISOString() });
  return { url: setupUrl(publicUrl, token), expires_at: expires };
}

/**
 * A1: mints a setup link and queues the email that carries it, in one
 * transaction (a committed invite never loses its email), naming the workspace
 * and who invited (team invites and their "Resend" use this).
 */
export async function emailSetupLink(db: Kysely<DB>, workspaceId: number, userId: string, publicUrl: string, invitedBy?: string | null) {
  return db.transaction().execute(async (trx) => {
    const member = await memberWithWorkspace(trx, workspaceId, userId);
    if (!member) throw new AppError(404, 'User not found');
    const link = await mintSetupLink(trx, workspaceId, userId, publicUrl);
    const text = [
      member.first_name ? `Hello ${member.first_name},` : 'Hello,',
      '',
      `${invitedBy ? `${invitedBy} invited you` : 'You are invited'} to join ${member.workspace_name} on Fieldwork.`,
      'Set up your account here (the link works once, for 7 days):',
      link.url,
    ].join('\n');
    await queueMessage(trx, workspaceId, {
      channel: 'email',
      type: 'account_setup',
      module_type: 'user',
      module_id: member.id,
      contact_id: null,
      recipient: member.email,
      subject: `Join ${member.workspace_name} on Fieldwork`,
      body_text: text,
      body_html: null,
    });
    return link;
  });
}

function checkPassword(password: string, email: string, field = 'password'): void {
  const problem = passwordProblem(password, email);
  if (problem) throw invalidField([field], problem);
}

async function liveLink(db: Kysely<DB>, token: string, kind: 'setup' | 'reset') {
  const link = await findLink(db, hashToken(token), kind);
  if (!link || link.used_at !== null || Date.parse(link.expires_at) <= Date.now()) throw invalidLink();
  return link;
}

/** `POST /api/auth/setup-info`: what a setup page shows before its form (whose link, for which workspace, sign in or create). */
export async function setupInfo(db: Kysely<DB>, token: string) {
  const link = await liveLink(db, token, 'setup');
  return {
    email: link.email,
    first_name: link.first_name,
    last_name: link.last_name,
    workspace: { id: link.workspace_id, name: link.workspace_name },
    has_password: link.password_hash !== null,
  };
}

export interface SetupInput {
  token: string;
  first_name?: string;
  last_name?: string;
  password?: string;
}

/**
 * `POST /api/auth/setup`. A person without a password sets names and password
 * and is signed in. A person who has one joins with the session they signed in
 * with ("Join workspace"): the link then only moves that session there (A18).
 */
export async function setup(ctx: AppContext, input: SetupInput, currentSession: () => Promise<AuthContext | null>): Promise<SignedIn | Me> {
  // Only joining reads the session (and checks its CSRF token): a new person's setup needs none.
  // It is read before the transaction, which may not wait on a second statement of its own.
  const joining = (await liveLink(ctx.db, input.token, 'setup')).password_hash !== null;
  const session = joining ? await currentSession() : null;
  return ctx.db.transaction().execute(async (trx) => {
    const link = await liveLink(trx, input.token, 'setup');
    const at = now();
    if (link.password_hash !== null) {
      if (!session?.session || session.session.accountId !== link.account_id) throw new AppError(401, 'Sign in to join this workspace');
      if (!(await useLink(trx, link.workspace_id, link.id, link.member_id, 'setup', at))) throw invalidLink();
      await moveSession(trx, session.session.id, link.member_id);
      const rows = await membershipsOf(trx, link.workspace_id, link.user_id, false);
      const current = rows.find((r) => r.workspace_id === link.workspace_id)!;
      return meView(rows, current, scopesOfRole(current.role), session.session.csrfToken);
    }
    const details: Detail[] = [];
    const firstName = input.first_name?.trim() ?? '';
    const lastName = input.last_name?.trim() ?? '';
    if (!firstName) details.push({ path: ['first_name'], message: 'is required' });
    if (!lastName) details.push({ path: ['last_name'], message: 'is required' });
    const problem = input.password === undefined ? 'is required' : passwordProblem(input.password, link.email);
    if (problem) details.push({ path: ['password'], message: problem });
    if (details.length) throw new ValidationError(details);
    if (!(await useLink(trx, link.workspace_id, link.id, link.member_id, 'setup', at))) throw invalidLink();
    const accountId = await savePassword(trx, link.email, await hashPassword(input.password!), at);
    await setMemberNames(trx, link.workspace_id, link.member_id, firstName, lastName, at);
    await deleteSessionsOf(trx, accountId); // a new password ends every earlier session
    const token = await startSession(trx, ctx, accountId, link.member_id);
    const rows = await membershipsOf(trx, link.workspace_id, link.user_id, false);
    const current = rows.find((r) => r.workspace_id === link.workspace_id)!;
    return { token, me: meView(rows, current, scopesOfRole(current.role), csrfTokenOf(token)) };
  });
}

/**
 * `POST /api/auth/forgot-password`: a reset link by email to a person with a
 * membership, queued in the transaction that stores the link (so a committed
 * request never loses its email). The answer is the same whether or not anyone
 * has that email (A1: no account enumeration).
 */
export async function forgotPassword(ctx: AppContext, email: string): Promise<void> {
  const address = normalEmail(email);
  await ctx.db.transaction().execute(async (trx) => {
    // The person's oldest membership names the workspace in the email (A19).
    const member = await oldestMembership(trx, address);
    if (!member) return;
    const token = newLinkToken();
    const at = new Date();
    await insertLink(trx, {
      workspace_id: member.workspace_id,
      user_id: member.id,
      kind: 'reset',
      token_hash: hashToken(token),
      expires_at: new Date(at.getTime() + RESET_LINK_TTL_MS).toISOString(),
      used_at: null,
      created_at: at.toISOString(),
    });
    const url = resetUrl(ctx.config.publicUrl, token);
    const hello = member.first_name ? `Hello ${member.first_name},` : 'Hello,';
    const text = [
      hello,
      '',
      `Someone asked to reset the password of your ${member.workspace_name} account on Fieldwork.`,
      `Set a new password here (the link works once, for one hour):`,
      url,
      '',
      'If it was not you, ignore this email: your password stays as it is.',
    ].join('\n');
    await queueMessage(trx, member.workspace_id, {
      channel: 'email',
      type: 'password_reset',
      module_type: 'user',
      module_id: member.id,
      contact_id: null,
      recipient: address,
      subject: `Reset your ${member.workspace_name} password`,
      body_text: text,
      body_html: null,
    });
  });
}

/** `POST /api/auth/reset-password`: sets the password, ends every session of the person, signs in. */
export async function resetPassword(ctx: AppContext, input: { token: string; password: string }): Promise<SignedIn> {
  return ctx.db.transaction().execute(async (trx) => {
    const link = await liveLink(trx, input.token, 'reset');
    checkPassword(input.password, link.email);
    const at = now();
    if (!(await useLink(trx, link.workspace_id, link.id, link.member_id, 'reset', at))) throw invalidLink();
    const accountId = await savePassword(trx, link.email, await hashPassword(input.password), at);
    await deleteSessionsOf(trx, accountId);
    const token = await startSession(trx, ctx, accountId, link.member_id);
    const rows = await membershipsOf(trx, link.workspace_id, link.user_id, false);
    const current = rows.find((r) => r.workspace_id === link.workspace_id)!;
    return { token, me: meView(rows, current, scopesOfRole(current.role), csrfTokenOf(token)) };
  });
}

/** `POST /api/auth/change-password` (account page): the current password first; every other session ends. */
export async function changePassword(db: Kysely<DB>, auth: AuthContext, input: { current_password: string; new_password: string }): Promise<void> {
  if (!auth.session) throw new AppError(401, 'Not signed in');
  const { accountId, email, id } = auth.session;
  const account = await findAccount(db, email);
  if (!account || !(await verifyPassword(input.current_password, account.password_hash))) throw invalidField(['current_password'], 'is not your current password');
  checkPassword(input.new_password, email, 'new_password');
  const hash = await hashPassword(input.new_password);
  await db.transaction().execute(async (trx) => {
    await savePassword(trx, email, hash, now());
    await deleteSessionsOf(trx, accountId, id);
  });
}

import type { Kysely } from 'kysely';
import { now } from '../../db/json.ts';
import type { DB } from '../../db/schema.ts';
import type { AuthContext } from '../../http/auth.ts';
import type { AppContext } from '../../http/context.ts';
import { transact } from '../../http/transact.ts';
import { AppError, conflict, invalidField, notFound } from '../../kernel/errors.ts';
import { toCents } from '../../domain/money.ts';
import { queueMessage } from '../../outbox/messages.ts';
import { mintSetupLink } from '../accounts/accounts.service.ts';
import { countOwners, findUser, updateUser } from '../users/users.repo.ts';
import { addUser, type Role, setUser, userViewFor } from '../users/users.service.ts';
import { findWorkspace } from '../workspace/workspace.repo.ts';
import { deleteMember, findInvite, listInvites, revokeKeysOf } from './team.repo.ts';

// A5 "Team" (issue 22): invites, role changes and removals. Owners and admins
// only (the session-only scope `team:manage`); an admin may not make, demote or
// remove an owner (A1), and the last owner stays (409).

const forbidden = () => new AppError(403, 'Forbidden');

export interface InviteView {
  id: number;
  user_id: string;
  email: string;
  role: string;
  first_name: string | null;
  last_name: string | null;
  created_at: string;
  last_sent_at: string | null;
  expires_at: string | null;
  email_status: string | null;
  email_error: string | null;
}

const inviteView = (r: InviteView & { updated_at?: string }): InviteView => ({
  id: r.id,
  user_id: r.user_id,
  email: r.email,
  role: r.role,
  first_name: r.first_name,
  last_name: r.last_name,
  created_at: r.created_at,
  last_sent_at: r.last_sent_at,
  expires_at: r.expires_at,
  email_status: r.email_status,
  email_error: r.email_error,
});

export function teamService({ db, config, authenticator }: AppContext) {
  /** Mints a setup link (A1, 7 days) and queues the invite email with it, in `trx`. */
  async function sendInvite(trx: Kysely<DB>, auth: AuthContext, member: { id: number; user_id: string; email: string }) {
    const w = await findWorkspace(trx, auth.workspaceId);
    if (!w) throw notFound('Workspace');
    const inviter = await findUser(trx, auth.workspaceId, auth.userId);
    const by = [inviter?.first_name, inviter?.last_name].filter(Boolean).join(' ') || inviter?.email || w.name;
    const link = await mintSetupLink(trx, auth.workspaceId, member.user_id, config.publicUrl);
    const text = [
      `${by} invited you to join ${w.name} on Fieldwork.`,
      '',
      'Accept the invitation and set your password here (the link works once, for 7 days):',
      link.url,
      '',
      'If you did not expect this, ignore this email.',
    ].join('\n');
    await queueMessage(trx, auth.workspaceId, {
      channel: 'email',
      type: 'team_invite',
      module_type: 'user',
      module_id: member.id,
      contact_id: null,
      recipient: member.email,
      subject: `Join ${w.name} on Fieldwork`,
      body_text: text,
      body_html: null,
    });
  }

  const pendingOr404 = async (trx: Kysely<DB>, auth: AuthContext, id: number) => {
    const invite = await findInvite(trx, auth.workspaceId, id);
    if (!invite) throw notFound('Invite');
    return invite;
  };

  const guardOwner = (auth: AuthContext, role: string) => {
    if (auth.role === 'admin' && role === 'owner') throw forbidden(); // A1: owners are the owners' business
  };

  return {
    async list(auth: AuthContext, q: Parameters<typeof listInvites>[2]) {
      const { rows, pagination } = await listInvites(db, auth.workspaceId, q);
      return { rows: rows.map(inviteView), pagination };
    },

    /** Invite by email and role: a new member, a setup link and its email, one transaction. */
    invite(auth: AuthContext, body: { email: string; role: Role; first_name?: string; last_name?: string }): Promise<InviteView> {
      guardOwner(auth, body.role);
      return transact(db, auth, async (trx) => {
        const member = await addUser(trx, auth.workspaceId, { email: body.email, role: body.role, first_name: body.first_name, last_name: body.last_name });
        await sendInvite(trx, auth, member);
        return inviteView(await pendingOr404(trx, auth, member.id));
      });
    },

    /** A fresh link by email; earlier links keep working until they expire. */
    resend(auth: AuthContext, id: number): Promise<InviteView> {
      return transact(db, auth, async (trx) => {
        const invite = await pendingOr404(trx, auth, id);
        guardOwner(auth, invite.role);
        await sendInvite(trx, auth, invite);
        return inviteView(await pendingOr404(trx, auth, id));
      });
    },

    /**
     * F333: a fresh setup link for a pending invite, to hand over another way when its
     * email did not go out (no SMTP_URL, an address refused). Earlier links keep working.
     */
    setupLink(auth: AuthContext, id: number): Promise<{ url: string; expires_at: string }> {
      return transact(db, auth, async (trx) => {
        const invite = await pendingOr404(trx, auth, id);
        guardOwner(auth, invite.role);
        return mintSetupLink(trx, auth.workspaceId, invite.user_id, config.publicUrl);
      });
    },

    /** Cancels a pending invite: the member who never joined is removed, and so are their links. */
    async cancel(auth: AuthContext, id: number): Promise<void> {
      await transact(db, auth, async (trx) => {
        const invite = await pendingOr404(trx, auth, id);
        guardOwner(auth, invite.role);
        await deleteMember(trx, auth.workspaceId, invite.id);
      });
    },

    /** PUT /users/:user_id: role, job title, names (the service of `fieldwork user set`). */
    update(auth: AuthContext, userId: string, body: { role?: Role; first_name?: string | null; last_name?: string | null; job_title?: string | null; cost_rate?: number | null }) {
      const { cost_rate, ...fields } = body;
      let costRateCents: number | null | undefined;
      if (cost_rate !== undefined && cost_rate !== null) {
        costRateCents = toCents(cost_rate);
        if (costRateCents === null) throw invalidField(['cost_rate'], 'must have at most 2 decimals');
      } else costRateCents = cost_rate;
      return transact(db, auth, async (trx) => {
        const member = await findUser(trx, auth.workspaceId, userId);
        if (!member) throw notFound('User');
        if (body.role !== undefined && body.role !== member.role) {
          guardOwner(auth, member.role);
          guardOwner(auth, body.role);
        }
        const pairs = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v ?? '']));
        let { user } = await setUser(trx, auth.workspaceId, userId, pairs);
        if (costRateCents !== undefined) user = await updateUser(trx, user.id, { cost_rate_cents: costRateCents });
        return userViewFor(auth, user);
      });
    },

    /** DELETE /users/:user_id: the membership goes, its sessions end (cascade), its keys are revoked. */
    async remove(auth: AuthContext, userId: string): Promise<void> {
      const hashes = await transact(db, auth, async (trx) => {
        const member = await findUser(trx, auth.workspaceId, userId);
        if (!member) throw notFound('User');
        if (member.role === 'owner') {
          guardOwner(auth, 'owner');
          if ((await countOwners(trx, auth.workspaceId)) < 2) throw conflict('The last owner of a workspace cannot be removed');
        }
        const revoked = await revokeKeysOf(trx, auth.workspaceId, member.user_id, now());
        await deleteMember(trx, auth.workspaceId, member.id);
        return revoked;
      });
      for (const hash of hashes) authenticator.forget(hash); // this process at once; others as on any revocation
    },
  };
}

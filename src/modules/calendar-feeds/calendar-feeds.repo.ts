import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

// E25: a member's calendar feed (one per membership) and what the feed lists.

/** Replaces the member's feed with a new token hash (the old URL stops). */
export async function replaceFeed(db: Kysely<DB>, workspaceId: number, memberId: number, tokenHash: string, at: string): Promise<void> {
  await db.deleteFrom('calendar_feeds').where('workspace_id', '=', workspaceId).where('member_id', '=', memberId).execute();
  await db.insertInto('calendar_feeds').values({ workspace_id: workspaceId, member_id: memberId, token_hash: tokenHash, created_at: at }).execute();
}

export async function deleteFeed(db: Kysely<DB>, workspaceId: number, memberId: number): Promise<boolean> {
  const r = await db.deleteFrom('calendar_feeds').where('workspace_id', '=', workspaceId).where('member_id', '=', memberId).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** The feed's member and workspace by token hash; a removed member's feed went with the member (cascade). */
export function feedByHash(db: Kysely<DB>, tokenHash: string) {
  return db
    .selectFrom('calendar_feeds as f')
    .innerJoin('users as u', (j) => j.onRef('u.workspace_id', '=', 'f.workspace_id').onRef('u.id', '=', 'f.member_id'))
    .innerJoin('workspaces as w', 'w.id', 'f.workspace_id')
    .select(['f.workspace_id', 'u.user_id', 'u.first_name', 'u.last_name', 'u.email', 'w.name as workspace_name', 'w.timezone', 'w.hash as workspace_hash'])
    .where('f.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** The visits assigned to `userId` that touch [from, to], with their client's name and property's address. */
export function assignedVisits(db: Kysely<DB>, workspaceId: number, userId: string, from: string, to: string) {
  return db
    .selectFrom('events as e')
    .innerJoin('event_assignees as a', (j) => j.onRef('a.workspace_id', '=', 'e.workspace_id').onRef('a.event_id', '=', 'e.id'))
    .leftJoin('jobs as j', (j) => j.onRef('j.workspace_id', '=', 'e.workspace_id').onRef('j.id', '=', 'e.job_id'))
    .leftJoin('requests as r', (j) => j.onRef('r.workspace_id', '=', 'e.workspace_id').onRef('r.id', '=', 'e.request_id'))
    .leftJoin('contacts as c', (j) => j.onRef('c.workspace_id', '=', 'e.workspace_id').on((eb) => eb('c.id', '=', eb.fn.coalesce('j.contact_id', 'r.contact_id'))))
    .leftJoin('properties as p', (j) => j.onRef('p.workspace_id', '=', 'e.workspace_id').on((eb) => eb('p.id', '=', eb.fn.coalesce('j.property_id', 'r.property_id'))))
    .select([
      'e.id',
      'e.name',
      'e.description',
      'e.job_id',
      'e.start_date',
      'e.end_date',
      'e.start_time',
      'e.end_time',
      'e.all_day',
      'e.status',
      'e.updated_at',
      'c.first_name as client_first_name',
      'c.last_name as client_last_name',
      'c.company as client_company',
      'p.street',
      'p.street_2',
      'p.city',
      'p.state',
      'p.postal_code',
      'p.country',
    ])
    .where('e.workspace_id', '=', workspaceId)
    .where('a.user_id', '=', userId)
    .where('e.type', '=', 'appointment')
    .where('e.start_date', '<=', to)
    .where('e.end_date', '>=', from)
    .orderBy('e.start_date')
    .orderBy('e.id')
    .execute();
}
export type FeedVisit = Awaited<ReturnType<typeof assignedVisits>>[number];

/** The visits' stored sequences and fingerprints. */
export async function sequencesOf(db: Kysely<DB>, workspaceId: number, eventIds: number[]) {
  if (!eventIds.length) return [];
  return db.selectFrom('calendar_sequences').select(['event_id', 'sequence', 'fingerprint']).where('workspace_id', '=', workspaceId).where('event_id', 'in', eventIds).execute();
}

/**
 * Stores a visit's fingerprint, its sequence one higher than the stored one when the
 * fingerprint changed (0 for a visit seen the first time). Conditional, so two feeds
 * read at once count one change once; returns the sequence now stored.
 */
export async function bumpSequence(db: Kysely<DB>, workspaceId: number, eventId: number, fingerprint: string): Promise<number> {
  const row = await db
    .insertInto('calendar_sequences')
    .values({ workspace_id: workspaceId, event_id: eventId, sequence: 0, fingerprint })
    .onConflict((oc) =>
      oc
        .columns(['workspace_id', 'event_id'])
        .doUpdateSet((eb) => ({ sequence: eb('calendar_sequences.sequence', '+', 1), fingerprint: eb.ref('excluded.fingerprint') }))
        .where('calendar_sequences.fingerprint', '<>', fingerprint),
    )
    .returning('sequence')
    .executeTakeFirst();
  if (row) return row.sequence;
  const stored = await db.selectFrom('calendar_sequences').select('sequence').where('workspace_id', '=', workspaceId).where('event_id', '=', eventId).executeTakeFirstOrThrow();
  return stored.sequence;
}

import { createHash, randomBytes } from 'node:crypto';
import ical, { ICalCalendarMethod, ICalEventStatus } from 'ical-generator';
import type { Kysely } from 'kysely';
import { DateTime } from 'luxon';
import { tzlib_get_ical_block } from 'timezones-ical-library';
import { now } from '../../db/json.ts';
import type { DB } from '../../db/schema.ts';
import { addDays } from '../../domain/weeks.ts';
import { zonedDate } from '../../domain/zoned-time.ts';
import type { AuthContext } from '../../http/auth.ts';
import { transact } from '../../http/transact.ts';
import { AppError, notFound } from '../../kernel/errors.ts';
import { hashToken } from '../../kernel/tokens.ts';
import { assignedVisits, bumpSequence, deleteFeed, type FeedVisit, feedByHash, replaceFeed, sequencesOf } from './calendar-feeds.repo.ts';

// EXTENSIONS E25: a person's visits as an iCalendar feed (RFC 5545) their calendar
// app subscribes to. The URL is the credential: a 256-bit random token, stored as its
// SHA-256 (as hub links are), one per membership; a new one replaces the old.

/** E25: from 30 days ago to 180 days ahead, in the workspace's days. */
const DAYS_BACK = 30;
const DAYS_AHEAD = 180;
/** REFRESH-INTERVAL and X-PUBLISHED-TTL: how often calendar apps are asked to fetch again (F278). */
const REFRESH_SECONDS = 3600;

const TOKEN = /^([A-Za-z0-9_-]{43})\.ics$/;

const sessionOnly = () => new AppError(403, "A calendar feed belongs to a person: use a session, not an API key");

/** POST /me/calendar-feed: a new URL for the session's membership; the previous one stops working. */
export function createCalendarFeed(db: Kysely<DB>, auth: AuthContext, publicUrl: string): Promise<{ url: string }> {
  if (!auth.session) throw sessionOnly();
  const memberId = auth.session.memberId;
  const token = randomBytes(32).toString('base64url');
  return transact(db, auth, async (trx) => {
    await replaceFeed(trx, auth.workspaceId, memberId, hashToken(token), now());
    return { url: `${publicUrl}/calendar/${token}.ics` };
  });
}

/** DELETE /me/calendar-feed: revokes the URL (404 when there is none). */
export function revokeCalendarFeed(db: Kysely<DB>, auth: AuthContext): Promise<{ deleted: true }> {
  if (!auth.session) throw sessionOnly();
  const memberId = auth.session.memberId;
  return transact(db, auth, async (trx) => {
    if (!(await deleteFeed(trx, auth.workspaceId, memberId))) throw notFound('Calendar feed');
    return { deleted: true as const };
  });
}

const addressOf = (v: FeedVisit) =>
  [v.street, v.street_2, v.city, [v.state, v.postal_code].filter(Boolean).join(' '), v.country].filter((s) => typeof s === 'string' && s.trim()).join(', ');

const clientOf = (v: FeedVisit) => {
  const name = [v.client_first_name, v.client_last_name].filter(Boolean).join(' ').trim();
  return name || v.client_company || '';
};

/** F277: a job's visit opens its job; any other visit, its day in the schedule. */
const appLink = (publicUrl: string, v: FeedVisit) => (v.job_id ? `${publicUrl}/app/jobs/${v.job_id}` : `${publicUrl}/app/schedule?view=day&date=${v.start_date}`);

/** A time zone ical-generator can name with a VTIMEZONE; anything else is written in UTC. */
function zoneOf(timezone: string | null): string | null {
  if (!timezone || timezone === 'UTC' || timezone === 'Etc/UTC') return null;
  try {
    return tzlib_get_ical_block(timezone)[0] ? timezone : null;
  } catch {
    return null;
  }
}

interface Shown {
  summary: string;
  location: string;
  description: string;
  allDay: boolean;
  start: string;
  end: string;
  status: string;
}

/** What the feed shows of a visit; its fingerprint decides when SEQUENCE grows (F276). */
function shownOf(v: FeedVisit, publicUrl: string): Shown {
  const allDay = v.all_day === 1 || !v.start_time;
  const client = clientOf(v);
  const name = v.name?.trim() || 'Visit';
  return {
    summary: client ? `${name} - ${client}` : name,
    location: addressOf(v),
    description: [v.description?.trim(), `Open in Fieldwork: ${appLink(publicUrl, v)}`].filter(Boolean).join('\n\n'),
    allDay,
    start: allDay ? v.start_date : `${v.start_date}T${v.start_time}`,
    // Without an end time a visit lasts an hour; an all-day visit's DTEND is the day after its last (exclusive).
    end: allDay ? addDays(v.end_date, 1) : v.end_time ? `${v.end_date}T${v.end_time}` : '',
    status: v.status,
  };
}

const fingerprintOf = (s: Shown) => createHash('sha256').update(JSON.stringify(s)).digest('hex');

/**
 * GET /calendar/<token>.ics: the member's visits, or null (404) for an unknown or
 * revoked token or a removed member. Reading it stores the visits' sequences.
 */
export async function calendarFeed(db: Kysely<DB>, file: string, publicUrl: string, nowMs = Date.now()): Promise<string | null> {
  const token = TOKEN.exec(file)?.[1];
  if (!token) return null;
  const feed = await feedByHash(db, hashToken(token));
  if (!feed) return null;
  const today = zonedDate(nowMs, feed.timezone);
  const visits = await assignedVisits(db, feed.workspace_id, feed.user_id, addDays(today, -DAYS_BACK), addDays(today, DAYS_AHEAD));
  const zone = zoneOf(feed.timezone);
  const host = new URL(publicUrl).hostname;

  const shown = visits.map((v) => ({ v, s: shownOf(v, publicUrl) }));
  const stored = new Map((await sequencesOf(db, feed.workspace_id, visits.map((v) => v.id))).map((r) => [r.event_id, r]));
  const person = [feed.first_name, feed.last_name].filter(Boolean).join(' ').trim() || feed.email;
  const cal = ical({
    name: `${feed.workspace_name}: ${person}'s visits`,
    prodId: { company: 'Fieldwork', product: 'Fieldwork Office', language: 'EN' },
    method: ICalCalendarMethod.PUBLISH,
    ttl: REFRESH_SECONDS,
    ...(zone ? { timezone: { name: zone, generator: (tz: string) => tzlib_get_ical_block(tz)[0] } } : {}),
  });
  for (const { v, s } of shown) {
    const fingerprint = fingerprintOf(s);
    const known = stored.get(v.id);
    const sequence = known?.fingerprint === fingerprint ? known.sequence : await bumpSequence(db, feed.workspace_id, v.id, fingerprint);
    const wall = (iso: string) => DateTime.fromISO(iso, { zone: zone ?? 'UTC' });
    const start = wall(s.start);
    cal.createEvent({
      // Stable: the workspace's hash and the visit's id (F277).
      id: `visit-${v.id}-${feed.workspace_hash}@${host}`,
      sequence,
      stamp: new Date(v.updated_at),
      lastModified: new Date(v.updated_at),
      allDay: s.allDay,
      start,
      end: s.end ? wall(s.end) : start.plus({ hours: 1 }),
      ...(zone && !s.allDay ? { timezone: zone } : {}),
      summary: s.summary,
      location: s.location || null,
      description: s.description,
      url: appLink(publicUrl, v),
      status: v.status === 'cancelled' ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
    });
  }
  return cal.toString();
}

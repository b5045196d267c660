import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import ICAL from 'ical.js';
import { addDays } from '../src/domain/weeks.ts';
import { zonedDate } from '../src/domain/zoned-time.ts';
import { setWorkspace } from '../src/modules/workspace/workspace.service.ts';
import { buildTestApp, client, type Res, seedUser, seedWorkspace, type TestApp } from './helpers.ts';
import { call, setUp } from './session-client.ts';

// EXTENSIONS E25: a person's visits as an iCalendar feed, read back with ical.js.

const PUBLIC_URL = 'https://office.example.test';

describe('E25 calendar feeds', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ PUBLIC_URL });
  });
  after(() => t.close());

  async function setup() {
    const ws = await seedWorkspace(t.db);
    await setWorkspace(t.db, ws.workspace.id, { timezone: 'America/Chicago' });
    const api = client(t.app, ws.token);
    const member = await seedUser(t.db, ws.workspace.id, 'member');
    const other = await seedUser(t.db, ws.workspace.id, 'member');
    const browser = await setUp(t.app, t.db, ws.workspace.id, member.user_id);
    return { ws, api, member, other, browser };
  }
  const created = (res: Res) => {
    assert.ok(res.status === 201 || res.status === 200, JSON.stringify(res.body));
    return res.body.data as { id: number } & Record<string, unknown>;
  };
  const path = (url: string) => new URL(url).pathname;
  const fetchFeed = (url: string) => t.app.inject({ method: 'GET', url: path(url) });
  const parse = (text: string) => new ICAL.Component(ICAL.parse(text));

  test('a session makes a URL whose feed lists its visits, with stable UIDs, growing SEQUENCE, TZID and cancellations', async () => {
    const { api, member, other, browser } = await setup();
    const today = zonedDate(Date.now(), 'America/Chicago');
    const c = created(await api.post('/api/v1/contacts', { first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.com' }));
    const p = created(await api.post(`/api/v1/contacts/${c.id}/properties`, { address: { street: '1 Navy Way', city: 'Arlington', state: 'VA', postal_code: '22201', country: 'US' } }));
    const job = created(await api.post('/api/v1/jobs', { name: 'Boiler', contact_id: c.id, property_id: p.id }));
    const visit = (extra: Record<string, unknown>) =>
      api.post('/api/v1/events', { name: 'Boiler service', type: 'appointment', job_id: job.id, start_time: '09:30', end_time: '11:00', assignee_ids: [member.user_id], ...extra });
    const timed = created(await visit({ start_date: addDays(today, 2), end_date: addDays(today, 2) }));
    const allDay = created(await visit({ name: 'Inspection', start_date: addDays(today, 3), end_date: addDays(today, 4), all_day: true, start_time: null, end_time: null }));
    const old = created(await visit({ start_date: addDays(today, -31), end_date: addDays(today, -31) }));
    const far = created(await visit({ start_date: addDays(today, 181), end_date: addDays(today, 181) }));
    const notMine = created(await visit({ start_date: addDays(today, 2), end_date: addDays(today, 2), assignee_ids: [other.user_id] }));
    const cancelled = created(await visit({ start_date: addDays(today, 5), end_date: addDays(today, 5), status: 'cancelled' }));

    const made = await browser.post('/api/v1/me/calendar-feed');
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const { url } = made.body.data;
    assert.match(url, /^https:\/\/office\.example\.test\/calendar\/[A-Za-z0-9_-]{43}\.ics$/);
    const token = url.split('/').pop().replace('.ics', '');
    const stored = await t.db.selectFrom('calendar_feeds').select('token_hash').execute();
    assert.ok(stored.every((r) => !r.token_hash.includes(token)), 'only the hash is stored');

    const res = await fetchFeed(url);
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/calendar/);
    const cal = parse(res.body);
    assert.match(String(cal.getFirstPropertyValue('x-wr-calname')), /visits/);
    assert.ok(res.body.includes('REFRESH-INTERVAL;VALUE=DURATION:PT1H'));
    assert.equal(cal.getFirstSubcomponent('vtimezone')?.getFirstPropertyValue('tzid'), 'America/Chicago');
    const events = cal.getAllSubcomponents('vevent').map((e) => new ICAL.Event(e));
    const byUid = new Map(events.map((e) => [e.uid, e]));
    assert.equal(events.length, 3, 'timed, all-day and cancelled; not the old, far or unassigned ones');
    const find = (id: number) => events.find((e) => e.uid.startsWith(`visit-${id}-`));
    assert.ok(!find(old.id) && !find(far.id) && !find(notMine.id));

    const e1 = find(timed.id)!;
    assert.equal(e1.summary, 'Boiler service - Grace Hopper');
    assert.equal(e1.location, '1 Navy Way, Arlington, VA 22201, US');
    assert.ok(e1.description.includes(`${PUBLIC_URL}/app/jobs/${job.id}`));
    assert.equal(e1.component.getFirstProperty('dtstart')?.getParameter('tzid'), 'America/Chicago');
    assert.equal(e1.startDate.toString(), `${addDays(today, 2)}T09:30:00`);
    assert.equal(e1.endDate.toString(), `${addDays(today, 2)}T11:00:00`);
    assert.equal(e1.sequence, 0);
    const e2 = find(allDay.id)!;
    assert.equal(e2.startDate.isDate, true);
    assert.equal(e2.startDate.toString(), addDays(today, 3));
    assert.equal(e2.endDate.toString(), addDays(today, 5), 'DTEND is the day after the last');
    assert.equal(find(cancelled.id)!.component.getFirstPropertyValue('status'), 'CANCELLED');
    assert.equal(e1.component.getFirstPropertyValue('status'), 'CONFIRMED');
    assert.ok(e1.component.getFirstPropertyValue('dtstamp'));

    // Unchanged: same UID and SEQUENCE; moved: SEQUENCE grows, each time.
    const again = parse((await fetchFeed(url)).body).getAllSubcomponents('vevent').map((e) => new ICAL.Event(e));
    assert.equal(again.find((e) => e.uid === e1.uid)?.sequence, 0);
    assert.equal((await api.put(`/api/v1/events/${timed.id}`, { start_time: '10:00' })).status, 200);
    const moved = new ICAL.Event(parse((await fetchFeed(url)).body).getAllSubcomponents('vevent').find((e) => e.getFirstPropertyValue('uid') === e1.uid)!);
    assert.equal(moved.sequence, 1);
    assert.equal(moved.startDate.toString(), `${addDays(today, 2)}T10:00:00`);
    assert.equal((await api.put(`/api/v1/events/${timed.id}/status`, { status: 'cancelled' })).status, 200);
    const third = new ICAL.Event(parse((await fetchFeed(url)).body).getAllSubcomponents('vevent').find((e) => e.getFirstPropertyValue('uid') === e1.uid)!);
    assert.equal(third.sequence, 2);
    assert.equal(third.component.getFirstPropertyValue('status'), 'CANCELLED');
    assert.ok(byUid.size === 3);

    // A new URL replaces the old; revoking stops it; an unknown token is 404.
    const second = (await browser.post('/api/v1/me/calendar-feed')).body.data.url;
    assert.notEqual(second, url);
    assert.equal((await fetchFeed(url)).statusCode, 404);
    assert.equal((await fetchFeed(second)).statusCode, 200);
    assert.equal((await browser.delete('/api/v1/me/calendar-feed')).status, 200);
    assert.equal((await fetchFeed(second)).statusCode, 404);
    assert.equal((await browser.delete('/api/v1/me/calendar-feed')).status, 404);
    // E11: a repeat with the same Idempotency-Key answers the same URL; had it run again, a new token would have replaced the first.
    const once = { cookie: browser.cookie, csrf: browser.csrf, headers: { 'idempotency-key': 'calendar-feed-once' } };
    const first = await call(t.app, 'POST', '/api/v1/me/calendar-feed', once);
    const replayed = await call(t.app, 'POST', '/api/v1/me/calendar-feed', once);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.deepEqual(replayed.body, first.body);
    assert.equal((await fetchFeed(first.body.data.url)).statusCode, 200);
    assert.equal((await t.app.inject({ method: 'GET', url: `/calendar/${'A'.repeat(43)}.ics` })).statusCode, 404);
    assert.equal((await t.app.inject({ method: 'GET', url: '/calendar/nonsense' })).statusCode, 404);
  });

  test("a removed member's feed stops; keys cannot make one", async () => {
    const { ws, member, browser } = await setup();
    const url = (await browser.post('/api/v1/me/calendar-feed')).body.data.url;
    // A workspace in UTC: times in UTC, no VTIMEZONE.
    await setWorkspace(t.db, ws.workspace.id, { timezone: 'UTC' });
    const day = addDays(zonedDate(Date.now(), 'UTC'), 1);
    created(await client(t.app, ws.token).post('/api/v1/events', { name: 'Check', type: 'appointment', start_date: day, end_date: day, start_time: '08:15', assignee_ids: [member.user_id] }));
    const utc = await fetchFeed(url);
    assert.equal(utc.statusCode, 200);
    assert.ok(utc.body.includes(`DTSTART:${day.replaceAll('-', '')}T081500Z`), utc.body);
    assert.ok(utc.body.includes(`DTEND:${day.replaceAll('-', '')}T091500Z`), 'an hour without an end time');
    assert.ok(!utc.body.includes('BEGIN:VTIMEZONE'));
    assert.equal(new ICAL.Event(parse(utc.body).getFirstSubcomponent('vevent')!).summary, 'Check');
    const owner = await setUp(t.app, t.db, ws.workspace.id, ws.owner.user_id);
    const removed = await owner.delete(`/api/v1/users/${member.user_id}`);
    assert.equal(removed.status, 200, JSON.stringify(removed.body));
    assert.equal((await fetchFeed(url)).statusCode, 404);
    const key = client(t.app, ws.token);
    assert.equal((await key.post('/api/v1/me/calendar-feed')).status, 403);
    assert.equal((await key.delete('/api/v1/me/calendar-feed')).status, 403);
  });
});

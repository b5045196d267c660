// The job form's presets as RRULE values and back (A140), what a save sends
// (A142), and the rule of "This and following visits" (A143): pure functions of
// the app, run without a browser.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { jobErrorPath, ruleOf, sameSchedule, scheduleBody, scheduleValues, type StoredSchedule } from '../src/features/jobs/recurrence.ts';
import { movedRule, ruleParts, ruleText, weekdayOf } from '../src/lib/rrule.ts';

const stored = (rrule: string, starts_on = '2027-03-02'): StoredSchedule => ({ rrule, starts_on, start_time: '09:00', end_time: '11:00', all_day: false, assignee_ids: ['u1'] });

describe('recurring rules in the app', () => {
  test('a stored rule the presets can say is shown as its preset, and made again the same', () => {
    const cases: [string, string, string[]][] = [
      ['FREQ=DAILY', 'daily', []],
      ['FREQ=WEEKLY;BYDAY=TU', 'weekly', ['TU']],
      ['FREQ=WEEKLY;INTERVAL=2;BYDAY=TU', 'every-2-weeks', ['TU']],
      ['FREQ=WEEKLY;INTERVAL=4;BYDAY=MO,TH', 'every-4-weeks', ['MO', 'TH']],
      ['FREQ=MONTHLY;BYMONTHDAY=2', 'monthly', []],
    ];
    for (const [rrule, repeats, days] of cases) {
      const v = scheduleValues(stored(rrule), '2027-01-01');
      assert.equal(v.repeats, repeats, rrule);
      assert.deepEqual(v.days, days, rrule);
      assert.equal(ruleOf(v), rrule, rrule);
    }
  });

  test('defaults that say nothing keep the preset; anything else is Custom with the rule as stored', () => {
    assert.equal(scheduleValues(stored('FREQ=WEEKLY;INTERVAL=1;WKST=MO;BYDAY=TU'), '2027-01-01').repeats, 'weekly');
    for (const rrule of ['FREQ=WEEKLY;INTERVAL=3;BYDAY=TU', 'FREQ=MONTHLY;BYDAY=-1FR', 'FREQ=MONTHLY;BYMONTHDAY=15', 'FREQ=YEARLY', 'FREQ=WEEKLY;BYDAY=TU;WKST=SU']) {
      const v = scheduleValues(stored(rrule), '2027-01-01');
      assert.equal(v.repeats, 'custom', rrule);
      assert.equal(ruleOf(v), rrule);
    }
  });

  test('"Ends" reads and writes COUNT and UNTIL', () => {
    const until = scheduleValues(stored('FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;UNTIL=20271231'), '2027-01-01');
    assert.deepEqual([until.repeats, until.ends, until.until], ['every-2-weeks', 'on', '2027-12-31']);
    assert.equal(ruleOf(until), 'FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;UNTIL=20271231');
    const count = scheduleValues(stored('FREQ=DAILY;COUNT=10'), '2027-01-01');
    assert.deepEqual([count.repeats, count.ends, count.count], ['daily', 'after', '10']);
    assert.equal(ruleOf({ ...count, ends: 'never' }), 'FREQ=DAILY');
  });

  test('a weekly kind with no day ticked repeats on the first date\'s weekday; "Never" sends no schedule', () => {
    const v = { ...scheduleValues(null, '2027-03-02'), repeats: 'weekly' as const };
    assert.equal(weekdayOf('2027-03-02'), 'TU');
    assert.equal(ruleOf(v), 'FREQ=WEEKLY;BYDAY=TU');
    assert.equal(scheduleBody({ ...v, repeats: 'never' }), null);
  });

  test('an unchanged schedule is the same whatever the order of its parts or people (A142)', () => {
    const s = stored('FREQ=WEEKLY;INTERVAL=2;BYDAY=TU');
    const body = scheduleBody(scheduleValues(s, '2027-01-01'));
    assert.ok(body && sameSchedule(body, s));
    assert.ok(sameSchedule({ ...s, rrule: 'FREQ=WEEKLY;BYDAY=TU;INTERVAL=2' }, s), 'parts compared one by one');
    assert.ok(!sameSchedule({ ...s, rrule: 'FREQ=WEEKLY;INTERVAL=2;BYDAY=WE' }, s));
    assert.ok(!sameSchedule({ ...s, start_time: '10:00' }, s));
    assert.ok(!sameSchedule({ ...s, assignee_ids: [] }, s));
  });

  test('"This and following visits": the moved weekday or day of the month replaces the old one (A143)', () => {
    assert.equal(movedRule('FREQ=WEEKLY;INTERVAL=2;BYDAY=TU', '2027-03-02', '2027-03-04'), 'FREQ=WEEKLY;INTERVAL=2;BYDAY=TH');
    assert.equal(movedRule('FREQ=WEEKLY;BYDAY=MO,TH', '2027-03-01', '2027-03-02'), 'FREQ=WEEKLY;BYDAY=TU,TH');
    assert.equal(movedRule('FREQ=WEEKLY;BYDAY=MO,TH', '2027-03-01', '2027-03-04'), 'FREQ=WEEKLY;BYDAY=TH');
    assert.equal(movedRule('FREQ=MONTHLY;BYMONTHDAY=2', '2027-03-02', '2027-03-05'), 'FREQ=MONTHLY;BYMONTHDAY=5');
    assert.equal(movedRule('FREQ=DAILY', '2027-03-02', '2027-03-05'), 'FREQ=DAILY');
    assert.equal(movedRule('FREQ=WEEKLY;BYDAY=TU', '2027-03-02', '2027-03-09'), 'FREQ=WEEKLY;BYDAY=TU', 'same weekday');
  });

  test('rules split and join; the API\'s error paths land by their fields', () => {
    assert.deepEqual(ruleParts('RRULE:freq=weekly;byday=tu'), { FREQ: 'WEEKLY', BYDAY: 'TU' });
    assert.equal(ruleText({ BYDAY: 'TU', FREQ: 'WEEKLY', COUNT: undefined }), 'FREQ=WEEKLY;BYDAY=TU');
    assert.equal(jobErrorPath('schedule.rrule'), 'schedule.rrule');
    assert.equal(jobErrorPath('schedule'), 'schedule.repeats');
    assert.equal(jobErrorPath('schedule.assignee_ids.0'), 'schedule.assignee_ids');
    assert.equal(jobErrorPath('invoicing'), 'invoicing');
    assert.equal(jobErrorPath('discount'), undefined);
  });
});

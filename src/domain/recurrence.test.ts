import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { addDays, describeRule, expandRule, firstDates, parseRule, type Rule, zonedOccurrences } from './recurrence.ts';

const rule = (text: string): Rule => {
  const parsed = parseRule(text);
  assert.ok(parsed.ok, `${text}: ${parsed.ok ? '' : parsed.message}`);
  return parsed.rule;
};
const refused = (text: string): string => {
  const parsed = parseRule(text);
  assert.equal(parsed.ok, false, `${text} should be refused`);
  return parsed.ok ? '' : parsed.message;
};

describe('parseRule', () => {
  test('reads every part E20 names, case-insensitively', () => {
    const r = rule('freq=monthly;interval=2;byday=-1fr;wkst=su;count=12');
    assert.deepEqual([r.freq, r.interval, r.byDay, r.wkst, r.count], ['MONTHLY', 2, [{ n: -1, day: 'FR' }], 'SU', 12]);
    assert.equal(r.text, 'FREQ=MONTHLY;INTERVAL=2;BYDAY=-1FR;WKST=SU;COUNT=12');
    assert.deepEqual(rule('FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1').bySetPos, [-1]);
    assert.deepEqual(rule('FREQ=YEARLY;BYMONTH=3,6;BYMONTHDAY=-1').byMonth, [3, 6]);
    assert.equal(rule('FREQ=DAILY;UNTIL=20270331').until, '2027-03-31');
  });

  test('each refusal names its part', () => {
    assert.equal(refused('FREQ=WEEKLY;BYDAY=XX'), 'BYDAY: "XX" is not a weekday (MO, TU, WE, TH, FR, SA, SU)');
    assert.match(refused('FREQ=HOURLY'), /^FREQ: "HOURLY"/);
    assert.match(refused('INTERVAL=2'), /^FREQ: required/);
    assert.match(refused(''), /empty/);
    assert.match(refused('FREQ=WEEKLY;INTERVAL=0'), /^INTERVAL: "0"/);
    assert.match(refused('FREQ=WEEKLY;INTERVAL=100'), /^INTERVAL: "100"/);
    assert.match(refused('FREQ=WEEKLY;BYDAY=1MO'), /^BYDAY: "1MO" has an ordinal/);
    assert.match(refused('FREQ=MONTHLY;BYDAY=6MO'), /^BYDAY: "6MO"/);
    assert.match(refused('FREQ=MONTHLY;BYMONTHDAY=32'), /^BYMONTHDAY: "32"/);
    assert.match(refused('FREQ=MONTHLY;BYMONTHDAY=-2'), /^BYMONTHDAY: "-2"/);
    assert.match(refused('FREQ=MONTHLY;BYMONTHDAY=0'), /^BYMONTHDAY: "0"/);
    assert.match(refused('FREQ=WEEKLY;BYMONTHDAY=1'), /^BYMONTHDAY: not allowed with FREQ=WEEKLY/);
    assert.match(refused('FREQ=YEARLY;BYMONTH=13'), /^BYMONTH: "13"/);
    assert.match(refused('FREQ=WEEKLY;BYSETPOS=1;BYDAY=MO'), /^BYSETPOS: only FREQ=MONTHLY/);
    assert.match(refused('FREQ=MONTHLY;BYSETPOS=1'), /^BYSETPOS: needs BYDAY/);
    assert.match(refused('FREQ=WEEKLY;WKST=TU'), /^WKST: "TU"/);
    assert.match(refused('FREQ=WEEKLY;COUNT=1001'), /^COUNT: "1001"/);
    assert.match(refused('FREQ=WEEKLY;COUNT=0'), /^COUNT: "0"/);
    assert.match(refused('FREQ=WEEKLY;UNTIL=20270230'), /^UNTIL: "20270230"/);
    assert.match(refused('FREQ=WEEKLY;UNTIL=20270101T000000Z'), /^UNTIL:/);
    assert.match(refused('FREQ=WEEKLY;COUNT=2;UNTIL=20270101'), /^COUNT and UNTIL/);
    assert.match(refused('FREQ=WEEKLY;BYHOUR=9'), /^BYHOUR: not a part/);
    assert.match(refused('DTSTART=20260101;FREQ=WEEKLY'), /^DTSTART: not a part/);
    assert.match(refused('FREQ=WEEKLY;FREQ=DAILY'), /^FREQ: given twice/);
    assert.match(refused('FREQ=WEEKLY;BYDAY'), /"BYDAY" is not a PART=VALUE pair/);
    assert.match(refused('FREQ=WEEKLY;BYDAY='), /^BYDAY: has no value/);
  });
});

describe('describeRule', () => {
  test("E20's examples", () => {
    assert.equal(describeRule(rule('FREQ=WEEKLY;INTERVAL=2;BYDAY=TU'), '2026-01-06'), 'Every 2 weeks on Tuesday');
    assert.equal(describeRule(rule('FREQ=MONTHLY;BYDAY=-1FR'), '2026-01-06'), 'Monthly on the last Friday');
    assert.equal(describeRule(rule('FREQ=WEEKLY;BYDAY=MO,TH;UNTIL=20270331'), '2026-01-06'), 'Weekly on Monday and Thursday, until March 31, 2027');
  });
  test('the other shapes', () => {
    assert.equal(describeRule(rule('FREQ=DAILY'), '2026-01-06'), 'Daily');
    assert.equal(describeRule(rule('FREQ=DAILY;INTERVAL=3;COUNT=10'), '2026-01-06'), 'Every 3 days, 10 times');
    assert.equal(describeRule(rule('FREQ=WEEKLY'), '2026-01-06'), 'Weekly on Tuesday');
    assert.equal(describeRule(rule('FREQ=WEEKLY;BYDAY=MO,WE,FR'), '2026-01-06'), 'Weekly on Monday, Wednesday and Friday');
    assert.equal(describeRule(rule('FREQ=MONTHLY;BYMONTHDAY=-1'), '2026-01-06'), 'Monthly on the last day');
    assert.equal(describeRule(rule('FREQ=MONTHLY;BYMONTHDAY=1,15'), '2026-01-06'), 'Monthly on the 1st and 15th');
    assert.equal(describeRule(rule('FREQ=MONTHLY'), '2026-01-31'), 'Monthly on the 31st');
    assert.equal(describeRule(rule('FREQ=MONTHLY;BYDAY=1MO'), '2026-01-06'), 'Monthly on the first Monday');
    assert.equal(describeRule(rule('FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1'), '2026-01-06'), 'Monthly on the last of Monday, Tuesday, Wednesday, Thursday and Friday');
    assert.equal(describeRule(rule('FREQ=YEARLY'), '2026-03-15'), 'Yearly on March 15');
    assert.equal(describeRule(rule('FREQ=YEARLY;BYMONTH=6;BYMONTHDAY=1;COUNT=1'), '2026-03-15'), 'Yearly on the 1st of June, once');
  });
});

describe('expandRule', () => {
  const dates = (text: string, startsOn: string, from: string, through: string, timeZone?: string) =>
    expandRule(rule(text), startsOn, from, through, { timeZone }).dates;

  test('the first visit is the first occurrence on or after starts_on', () => {
    // 2026-01-05 is a Monday
    assert.deepEqual(dates('FREQ=WEEKLY;BYDAY=TU', '2026-01-05', '2026-01-01', '2026-01-20'), ['2026-01-06', '2026-01-13', '2026-01-20']);
    assert.deepEqual(dates('FREQ=WEEKLY;INTERVAL=2;BYDAY=TU', '2026-01-05', '2026-01-01', '2026-02-04'), ['2026-01-06', '2026-01-20', '2026-02-03']);
  });

  test('the 31st skips months without one; BYMONTHDAY=-1 is the last day', () => {
    assert.deepEqual(dates('FREQ=MONTHLY;BYMONTHDAY=31', '2026-01-01', '2026-01-01', '2026-06-30'), ['2026-01-31', '2026-03-31', '2026-05-31']);
    assert.deepEqual(dates('FREQ=MONTHLY;BYMONTHDAY=-1', '2028-01-01', '2028-01-01', '2028-04-30'), ['2028-01-31', '2028-02-29', '2028-03-31', '2028-04-30']);
  });

  test('ordinals and BYSETPOS', () => {
    assert.deepEqual(dates('FREQ=MONTHLY;BYDAY=-1FR', '2026-01-01', '2026-01-01', '2026-03-31'), ['2026-01-30', '2026-02-27', '2026-03-27']);
    assert.deepEqual(dates('FREQ=MONTHLY;BYDAY=2TU', '2026-01-01', '2026-01-01', '2026-02-28'), ['2026-01-13', '2026-02-10']);
    assert.deepEqual(dates('FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1', '2026-05-01', '2026-05-01', '2026-06-30'), ['2026-05-29', '2026-06-30']);
  });

  test('COUNT counts from starts_on, also for a later window; UNTIL is inclusive', () => {
    assert.deepEqual(dates('FREQ=DAILY;COUNT=3', '2026-01-01', '2026-01-01', '2026-12-31'), ['2026-01-01', '2026-01-02', '2026-01-03']);
    assert.deepEqual(dates('FREQ=DAILY;COUNT=3', '2026-01-01', '2026-01-03', '2026-12-31'), ['2026-01-03']);
    assert.deepEqual(dates('FREQ=WEEKLY;UNTIL=20260120', '2026-01-06', '2026-01-01', '2026-12-31'), ['2026-01-06', '2026-01-13', '2026-01-20']);
  });

  test('a limit reports truncation; a rule that never matches ends', () => {
    const r = expandRule(rule('FREQ=DAILY'), '2026-01-01', '2026-01-01', '2026-12-31', { limit: 5 });
    assert.deepEqual([r.dates.length, r.truncated], [5, true]);
    assert.deepEqual(dates('FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30', '2026-01-01', '2026-01-01', '2036-12-31'), []);
  });

  test('one-day windows (the daily run) give what the whole year gives', () => {
    for (const text of ['FREQ=WEEKLY;BYDAY=TU,FR', 'FREQ=WEEKLY;INTERVAL=2', 'FREQ=MONTHLY;BYDAY=-1FR', 'FREQ=DAILY;BYDAY=MO', 'FREQ=MONTHLY;BYMONTHDAY=-1']) {
      const year = dates(text, '2026-01-06', '2026-01-06', '2026-12-31', 'Europe/Berlin');
      const daily: string[] = [];
      for (let d = '2026-01-06'; d <= '2026-12-31'; d = addDays(d, 1)) daily.push(...dates(text, '2026-01-06', d, d, 'Europe/Berlin'));
      assert.deepEqual(daily, year, text);
    }
  });

  test('firstDates: the preview', () => {
    assert.deepEqual(firstDates(rule('FREQ=WEEKLY;BYDAY=MO,TH'), '2026-01-01', 4), ['2026-01-01', '2026-01-05', '2026-01-08', '2026-01-12']);
  });

  // A 09:00 visit stays 09:00 on the wall clock through each zone's DST weeks: the
  // dates are the same as without DST, and the instants move by the hour.
  const dstWeeks: [zone: string, startsOn: string, offsets: [string, string]][] = [
    ['America/New_York', '2026-03-02', ['-05:00', '-04:00']], // spring forward 2026-03-08
    ['America/New_York', '2026-10-26', ['-04:00', '-05:00']], // fall back 2026-11-01
    ['Europe/Berlin', '2026-03-23', ['+01:00', '+02:00']], // 2026-03-29
    ['Europe/Berlin', '2026-10-19', ['+02:00', '+01:00']], // 2026-10-25
    ['Australia/Sydney', '2026-03-30', ['+11:00', '+10:00']], // 2026-04-05
    ['Australia/Sydney', '2026-09-28', ['+10:00', '+11:00']], // 2026-10-04
  ];
  for (const [zone, startsOn, [before, after]] of dstWeeks) {
    test(`DST in ${zone} from ${startsOn}: 09:00 local each week`, () => {
      const r = rule('FREQ=WEEKLY');
      const instants = zonedOccurrences(r, startsOn, 3, { timeZone: zone, time: '09:00' });
      assert.deepEqual(
        instants.map((s) => s.slice(11, 25)),
        [`09:00:00${before}`, `09:00:00${after}`, `09:00:00${after}`],
      );
      const weekly = expandRule(r, startsOn, startsOn, '2026-12-31', { timeZone: zone }).dates.slice(0, 3);
      assert.deepEqual(weekly, instants.map((s) => s.slice(0, 10)));
    });
    test(`DST in ${zone} from ${startsOn}: daily dates have no gap or repeat`, () => {
      const days = expandRule(rule('FREQ=DAILY'), startsOn, startsOn, '2026-12-31', { timeZone: zone, limit: 14 }).dates;
      const expected = Array.from({ length: 14 }, (_, i) => new Date(Date.parse(`${startsOn}T00:00:00Z`) + i * 86_400_000).toISOString().slice(0, 10));
      assert.deepEqual(days, expected);
    });
  }
});

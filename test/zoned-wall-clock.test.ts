// zonedWallClock: the workspace's date and HH:MM at an instant (My day's "today",
// Clock in and out, the calendar's "now"), across a zone's offset and DST change.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { zonedWallClock } from '../src/domain/zoned-time.ts';

test('the wall clock of an instant in a zone, UTC for none or an unknown name', () => {
  const at = Date.parse('2026-03-08T07:30:00Z'); // 2:30 EDT does not exist; 07:30Z is 03:30 EDT
  assert.deepEqual(zonedWallClock(at, 'America/New_York'), { date: '2026-03-08', time: '03:30' });
  assert.deepEqual(zonedWallClock(Date.parse('2026-03-08T06:59:00Z'), 'America/New_York'), { date: '2026-03-08', time: '01:59' });
  assert.deepEqual(zonedWallClock(Date.parse('2026-11-25T23:30:00Z'), 'Asia/Tokyo'), { date: '2026-11-26', time: '08:30' });
  assert.deepEqual(zonedWallClock(at, null), { date: '2026-03-08', time: '07:30' });
  assert.deepEqual(zonedWallClock(at, 'Not/AZone'), { date: '2026-03-08', time: '07:30' });
});

import { expect, it } from 'vitest';
import { dayAndWeekStart, knownZone } from '../../src/core/local-day.ts';

// Where the dashboard home's "today" and "this week" (from Monday) begin, in the viewer's zone.

const at = (iso: string) => new Date(iso);
const starts = (now: string, zone: string) => {
  const { today, week } = dayAndWeekStart(at(now), zone);
  return { today: today.toISOString(), week: week.toISOString() };
};

it('begins the day and the week (Monday) at local midnight', () => {
  // Thursday 1 October 2026, 12:00 UTC.
  expect(starts('2026-10-01T12:00:00Z', 'UTC')).toEqual({ today: '2026-10-01T00:00:00.000Z', week: '2026-09-28T00:00:00.000Z' });
  expect(starts('2026-10-01T12:00:00Z', 'America/Los_Angeles')).toEqual({ today: '2026-10-01T07:00:00.000Z', week: '2026-09-28T07:00:00.000Z' });
  // Already Friday in Auckland (UTC+13 in October), and India's half-hour offset.
  expect(starts('2026-10-01T12:00:00Z', 'Pacific/Auckland')).toEqual({ today: '2026-10-01T11:00:00.000Z', week: '2026-09-27T11:00:00.000Z' });
  expect(starts('2026-10-01T12:00:00Z', 'Asia/Kolkata')).toEqual({ today: '2026-09-30T18:30:00.000Z', week: '2026-09-27T18:30:00.000Z' });
});

it('keeps each midnight\'s own offset across a change of summer time, and a Monday is its own week', () => {
  // Sunday 29 March 2026 in Berlin: the clocks went forward at 02:00; the week began in winter time.
  expect(starts('2026-03-29T12:00:00Z', 'Europe/Berlin')).toEqual({ today: '2026-03-28T23:00:00.000Z', week: '2026-03-22T23:00:00.000Z' });
  // Monday 30 March, 00:30 in Berlin (summer time): today and the week are the same midnight.
  expect(starts('2026-03-29T22:30:00Z', 'Europe/Berlin')).toEqual({ today: '2026-03-29T22:00:00.000Z', week: '2026-03-29T22:00:00.000Z' });
});

it('counts in UTC for a zone this runtime does not know', () => {
  expect(knownZone('Mars/Olympus_Mons')).toBe('UTC');
  expect(knownZone('Europe/Berlin')).toBe('Europe/Berlin');
});

// Time is injected: every rule (expiry, rate windows, token lifetimes) reads this clock,
// so tests move time forward instead of sleeping.
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export class ManualClock implements Clock {
  #ms: number;

  constructor(start: Date | number = Date.UTC(2026, 9, 1, 12, 0, 0)) {
    this.#ms = typeof start === 'number' ? start : start.getTime();
  }

  now(): Date {
    return new Date(this.#ms);
  }

  advance(ms: number): void {
    this.#ms += ms;
  }

  set(to: Date | number): void {
    this.#ms = typeof to === 'number' ? to : to.getTime();
  }
}

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export function unixSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

export function unixSecondsOrNull(date: Date | null): number | null {
  return date === null ? null : unixSeconds(date);
}

const MOMENT = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/** The minutes of a zone offset such as +01:00, -0530 or Z. */
function offsetMinutes(zone: string | undefined): number {
  if (zone === undefined || zone.toUpperCase() === 'Z') return 0;
  const digits = zone.slice(1).replace(':', '');
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2));
  return zone.startsWith('-') ? -minutes : minutes;
}

/**
 * A moment as people type it: a day `2026-11-20` (its midnight), with a time `09:30` or
 * `09:30:15` after a space or `T`, and a zone `Z`, `+01:00` or `-0530` (UTC without one), in
 * milliseconds; null when the text is not of that form or names a day, time or offset that
 * does not exist (2026-02-30, 24:00, +15:00). Callers narrow the form with their own pattern.
 */
export function parseMoment(text: string): number | null {
  const match = MOMENT.exec(text);
  if (!match) return null;
  const [year, month, day, hour = '00', minute = '00', second = '00', zone] = match.slice(1);
  const local = Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second));
  const exact = new Date(local).toISOString().slice(0, 19) === `${year}-${month}-${day}T${hour}:${minute}:${second}`;
  if (!exact || Math.abs(offsetMinutes(zone)) > 14 * 60) return null;
  return local - offsetMinutes(zone) * MINUTE;
}

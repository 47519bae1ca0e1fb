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

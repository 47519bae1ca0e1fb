import type { Messages } from '../messages/en.ts';

// The time left to pay in words, as the buyer's language writes a duration ("6 days, 23 hours",
// "14 minutes", "45 seconds"): the two largest units while days or hours are left, then one.
// payer.js words it the same way as it ticks (Intl.DurationFormat, in Node 24 and browsers alike).

type Duration = Partial<Record<'days' | 'hours' | 'minutes' | 'seconds', number>>;
interface DurationFormat { format(duration: Duration): string }
// Not in TypeScript's es2024 library yet; Node 24 has it.
const DurationFormat = (Intl as unknown as { DurationFormat: new (lang: string, options: { style: 'long' }) => DurationFormat }).DurationFormat;

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const formats = new Map<string, DurationFormat>();

/** The parts of a duration worth saying: days and hours, hours and minutes, minutes, or seconds. */
export function durationParts(ms: number): Duration {
  const left = Math.max(0, ms);
  const days = Math.floor(left / DAY);
  const hours = Math.floor((left % DAY) / HOUR);
  const minutes = Math.floor((left % HOUR) / MINUTE);
  if (days > 0) return hours > 0 ? { days, hours } : { days };
  if (hours > 0) return minutes > 0 ? { hours, minutes } : { hours };
  if (minutes > 0) return { minutes };
  return { seconds: Math.floor(left / SECOND) };
}

/** The words already made, by language and parts: a page view asks again many times a minute. */
const worded = new Map<string, string>();
const WORDED_MAX = 4096;

/** How long is left, in words of the buyer's language. */
export function timeLeft(t: Messages, ms: number): string {
  const parts = durationParts(ms);
  const key = `${t.lang} ${parts.days ?? ''} ${parts.hours ?? ''} ${parts.minutes ?? ''} ${parts.seconds ?? ''}`;
  let words = worded.get(key);
  if (words === undefined) {
    let format = formats.get(t.lang);
    if (format === undefined) {
      format = new DurationFormat(t.lang, { style: 'long' });
      formats.set(t.lang, format);
    }
    words = format.format(parts);
    if (worded.size >= WORDED_MAX) worded.clear();
    worded.set(key, words);
  }
  return words;
}

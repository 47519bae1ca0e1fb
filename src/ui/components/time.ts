import { h, type VNode } from 'preact';
import { useViewer } from '../render.ts';

// A moment shown in the viewer's time zone, with the exact UTC value on hover and in `datetime`.

const FORMAT = { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZoneName: 'short' } as const;
const UTC = new Intl.DateTimeFormat('en-GB', { ...FORMAT, timeZone: 'UTC' });
/** One formatter per zone (making one costs more than formatting); only real zones are kept, so the map stays small. */
const formatters = new Map<string, Intl.DateTimeFormat>([['UTC', UTC]]);

function formatterFor(timeZone = 'UTC'): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    try {
      formatter = new Intl.DateTimeFormat('en-GB', { ...FORMAT, timeZone });
    } catch {
      return UTC; // not a zone this runtime knows
    }
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Formatted moments by zone and minute (what the format shows): lists show the same times on every load. */
const formatted = new Map<string, string>();
const FORMATTED_MAX = 20_000;

function shown(timeZone: string | undefined, at: Date): string {
  const key = `${timeZone ?? 'UTC'} ${Math.floor(at.getTime() / 60_000)}`;
  let text = formatted.get(key);
  if (text === undefined) {
    text = formatterFor(timeZone).format(at);
    if (formatted.size >= FORMATTED_MAX) formatted.clear();
    formatted.set(key, text);
  }
  return text;
}

function ZonedTime({ at }: { at: Date }): VNode {
  const iso = at.toISOString();
  const exact = `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
  return h('time', { datetime: iso, title: exact }, shown(useViewer().timeZone, at)) as VNode;
}

/** `at` as a Date or an ISO 8601 string (as the API gives it). */
export function Time({ at }: { at: Date | string }): VNode {
  const date = typeof at === 'string' ? new Date(at) : at;
  if (Number.isNaN(date.getTime())) throw new RangeError(`Time got a value that is not a time: ${String(at)}`);
  return h(ZonedTime, { at: date }) as VNode;
}

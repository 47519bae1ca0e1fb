// Where a viewer's day and week begin, as instants: the dashboard's home counts "today" and "this
// week" in the person's own time zone. Computed here rather than by PostgreSQL's AT TIME ZONE, whose
// zone names need not match the ones Intl (which checks a person's zone when saved) knows.

/** One formatter per zone (making one costs more than using it), only for zones this runtime knows. */
const formatters = new Map<string, Intl.DateTimeFormat>();

function parts(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
    });
    if (formatters.size >= 1_000) formatters.clear();
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The zone itself if this runtime knows it, else UTC. */
export function knownZone(timeZone: string): string {
  try {
    parts(timeZone);
    return timeZone;
  } catch {
    return 'UTC';
  }
}

/** How far the zone's wall clock is ahead of UTC at `at`, in milliseconds. */
function offsetAt(at: number, timeZone: string): number {
  const wall = Object.fromEntries(parts(timeZone).formatToParts(new Date(at)).map((part) => [part.type, Number(part.value)]));
  return Date.UTC(wall.year!, wall.month! - 1, wall.day!, wall.hour!, wall.minute!, wall.second!) - Math.floor(at / 1000) * 1000;
}

/** The instant of local midnight `daysBack` days before the local day of `now` (after a DST change, the offset at that midnight). */
function midnight(now: number, timeZone: string, daysBack: number): Date {
  const wall = new Date(now + offsetAt(now, timeZone));
  const target = Date.UTC(wall.getUTCFullYear(), wall.getUTCMonth(), wall.getUTCDate() - daysBack);
  const guess = target - offsetAt(now, timeZone);
  return new Date(target - offsetAt(guess, timeZone));
}

/** When today and this week (from Monday) began in `timeZone`, at `now`. */
export function dayAndWeekStart(now: Date, timeZone: string): { today: Date; week: Date } {
  const wall = new Date(now.getTime() + offsetAt(now.getTime(), timeZone));
  const sinceMonday = (wall.getUTCDay() + 6) % 7;
  return { today: midnight(now.getTime(), timeZone, 0), week: midnight(now.getTime(), timeZone, sinceMonday) };
}

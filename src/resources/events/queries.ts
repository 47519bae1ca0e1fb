import type { Principal } from '../../auth/principal.ts';
import { DAY } from '../../core/clock.ts';
import type { Db } from '../../db/database.ts';
import { ownedRows } from '../../db/owned.ts';
import type { ListEventsInput } from './schemas.ts';

/** How far back events are listed and found (issue 24: "the last 30 days", as the delivery log keeps them). */
export const EVENT_WINDOW_MS = 30 * DAY;

const eventRows = ownedRows({ what: 'event', table: 'events', rows: (db: Db) => db.selectFrom('events').select(['id', 'created_at', 'body']) });

const since = (now: Date) => new Date(now.getTime() - EVENT_WINDOW_MS);

/** A page of the caller's events of the last 30 days, newest first, filtered. */
export async function listEventRows(db: Db, principal: Principal, input: ListEventsInput, now: Date) {
  return eventRows.list(db, principal, input, (query) => {
    let filtered = query.where('events.created_at', '>', since(now));
    if (input.type !== undefined) filtered = filtered.where('events.type', '=', input.type);
    if (input.payment_id !== undefined) filtered = filtered.where('events.payment_id', '=', input.payment_id);
    return filtered;
  });
}

/** One event of the caller's business and mode from the last 30 days, or not_found. */
export async function getEvent(db: Db, principal: Principal, id: string, now: Date) {
  return eventRows.get(db, principal, id, { narrow: (query) => query.where('events.created_at', '>', since(now)) });
}

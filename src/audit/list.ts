import { sql } from 'kysely';
import type { Principal } from '../auth/principal.ts';
import { unixSeconds } from '../core/clock.ts';
import type { Db } from '../db/database.ts';

// The account's activity as people read it: what was done, to what, and who did it, named (the
// key by its name and hint, the person by their email, the agent by its client's name).

export interface ActivityEntry {
  id: number;
  action: string;
  subject_id: string | null;
  details: Record<string, unknown>;
  created: number;
  /** Who did it, as people know them. */
  by: { kind: 'key' | 'person' | 'agent' | 'operator' | 'service'; id: string | null; name: string };
}

const PAGE = 50;

/** The latest 50 entries of the caller's business and mode (before an entry, for the next 50). */
export async function listActivity(db: Db, principal: Principal, before?: number): Promise<{ entries: ActivityEntry[]; next: number | null }> {
  let query = db.selectFrom('activity as a')
    // The actor is "<kind>:<id>": each kind joins its own table by that text.
    .leftJoin('api_keys as k', (join) => join.on(sql<boolean>`a.actor = 'key:' || k.id`))
    .leftJoin('people as p', (join) => join.on(sql<boolean>`a.actor = 'person:' || p.id`))
    .leftJoin('agent_connections as c', (join) => join.on(sql<boolean>`a.actor = 'agent:' || c.id`))
    .select(['a.id', 'a.action', 'a.subject_id', 'a.details', 'a.created_at', 'a.actor', 'k.name as key_name', 'k.secret_hint as key_hint', 'p.email', 'c.client_name'])
    .where('a.business_id', '=', principal.businessId).where('a.livemode', '=', principal.livemode);
  if (before !== undefined) query = query.where('a.id', '<', before);
  const rows = await query.orderBy('a.id', 'desc').limit(PAGE + 1).execute();
  const entries = rows.slice(0, PAGE).map((row): ActivityEntry => {
    // Split at the first colon only: a client id may be an address (https://…).
    const colon = row.actor.indexOf(':');
    const [kind, id] = colon < 0 ? [row.actor, null] : [row.actor.slice(0, colon), row.actor.slice(colon + 1)];
    const by: ActivityEntry['by'] = kind === 'key' ? { kind: 'key', id, name: row.key_name ? `secret key “${row.key_name}” (${row.key_hint})` : `secret key ${row.key_hint ?? id}` }
      : kind === 'person' ? { kind: 'person', id, name: row.email ?? 'a person no longer here' }
        : kind === 'agent' ? { kind: 'agent', id, name: row.client_name ? `agent ${row.client_name}` : `agent ${id}` }
          // An agent's app giving up its own access (OAuth revocation): known by its client id alone.
          : kind === 'client' ? { kind: 'agent', id: null, name: `the agent app ${id}` }
            : kind === 'operator' ? { kind: 'operator', id: null, name: 'the service\'s operator' }
              : { kind: 'service', id: null, name: 'the service' };
    return { id: Number(row.id), action: row.action, subject_id: row.subject_id, details: row.details, created: unixSeconds(row.created_at), by };
  });
  return { entries, next: rows.length > PAGE ? entries.at(-1)!.id : null };
}

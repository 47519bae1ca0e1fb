import type { Principal } from '../../auth/principal.ts';
import { notFound } from '../../core/errors.ts';
import type { Db } from '../../db/database.ts';
import { scoped } from '../../db/owned.ts';

// Connected agents of the caller's business and mode, with the email of the person who approved each.
export function connections(db: Db, principal: Principal, id?: string) {
  return scoped(db.selectFrom('agent_connections as c').innerJoin('people as p', 'p.id', 'c.approved_by')
    .selectAll('c').select('p.email as approver_email'), 'c', principal, id);
}

export async function getAgentConnection(db: Db, principal: Principal, id: string) {
  const row = await connections(db, principal, id).executeTakeFirst();
  if (!row) throw notFound('connected agent', id);
  return row;
}

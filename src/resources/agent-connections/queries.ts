import { ownedRows } from '../../db/owned.ts';

// Connected agents of the caller's business and mode, with the email of the person who approved each.
const connections = ownedRows({
  what: 'connected agent',
  table: 'c',
  rows: (db) => db.selectFrom('agent_connections as c').innerJoin('people as p', 'p.id', 'c.approved_by').selectAll('c').select('p.email as approver_email'),
});

export const agentConnections = connections.query;

export const getAgentConnection = connections.get;

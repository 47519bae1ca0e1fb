import type { StatusSection } from '../operating/status.ts';

// What `processor status` shows of buyers' x402 authorizations (issue 33), from the database
// alone: claims waiting for the processor, submissions on their way (the oldest first), and those
// refused or failed in the last day with the protocol's reason. A buyer is waiting on each of them.

const DAY_MS = 24 * 60 * 60 * 1000;
/** At most this many of each kind are named. */
const NAMED = 10;

export const x402Section: StatusSection = {
  name: 'x402',
  async read(db, network, tokens, now) {
    const assets = tokens.map((token) => token.address);
    const [waiting, open, refused] = await Promise.all([
      assets.length === 0 ? [] : db.selectFrom('x402_authorizations as a').leftJoin('processor.x402_submissions as s', 's.authorization_id', 'a.id')
        .select(['a.id', 'a.payment_id', 'a.created_at']).where('a.state', '=', 'verified').where('a.livemode', '=', true)
        .where('a.asset', 'in', assets).where('s.id', 'is', null).orderBy('a.created_at').limit(NAMED).execute(),
      db.selectFrom('processor.x402_submissions').select(['payment_id', 'state', 'tx_hash', 'created_at'])
        .where('network', '=', network).where('state', 'in', ['signed', 'broadcast', 'mined', 'closing']).orderBy('id').limit(NAMED).execute(),
      db.selectFrom('processor.x402_submissions').select(['payment_id', 'state', 'reason', 'failure', 'updated_at'])
        .where('network', '=', network).where('state', 'in', ['refused', 'failed']).where('updated_at', '>=', new Date(now.getTime() - DAY_MS))
        .orderBy('id', 'desc').limit(NAMED).execute(),
    ]);
    return {
      json: {
        waiting: waiting.map((row) => ({ authorization_id: row.id, payment_id: row.payment_id, since: row.created_at.toISOString() })),
        submitting: open.map((row) => ({ payment_id: row.payment_id, state: row.state, txid: row.tx_hash, since: row.created_at.toISOString() })),
        refused_last_day: refused.map((row) => ({ payment_id: row.payment_id, state: row.state, reason: row.reason, failure: row.failure, at: row.updated_at.toISOString() })),
      },
      text: [
        `x402: ${waiting.length} waiting for the processor, ${open.length} on their way, ${refused.length} refused or failed in the last day`,
        ...waiting.map((row) => `  waiting: ${row.payment_id} since ${row.created_at.toISOString()}`),
        ...open.map((row) => `  ${row.state}: ${row.payment_id} in ${row.tx_hash} since ${row.created_at.toISOString()}`),
        ...refused.map((row) => `  ${row.state}: ${row.payment_id}: ${row.reason} (${row.failure ?? ''})`),
      ],
    };
  },
};

import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { recordActivity } from '../audit/activity.ts';
import type { Principal } from '../auth/principal.ts';
import { DAY, type Clock } from '../core/clock.ts';
import { ApiError } from '../core/errors.ts';
import { newId } from '../core/ids.ts';
import { formatMoney } from '../core/money.ts';
import type { Db } from '../db/database.ts';
import type { AgentApprovalsTable } from '../db/schema.ts';
import type { Spend } from '../verbs/operation.ts';
import type { Selectable } from 'kysely';

// A connected agent's call beyond its spend policy waits for a person: the call is written down
// with its exact arguments as an approval request, a person who manages agents approves or
// declines it in the dashboard, and the agent's repeat of that call (with the approval's id, or
// the same arguments) uses the approval once. An approval binds the operation, the hash of its
// arguments as checked and the amount they resolve to (a checkout's price may change after the
// person said yes: the retry then is another call); it expires 24 hours after it was asked for,
// decided or not, and a person may withdraw it until it is used.

export const APPROVAL_TTL_MS = DAY;

export type ApprovalRow = Selectable<AgentApprovalsTable>;

/** Keys sorted at every level, so the same arguments always hash the same. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === 'object' && value !== null && !(value instanceof Date)) {
    return Object.fromEntries(Object.keys(value).sort().map((key) => [key, canonical((value as Record<string, unknown>)[key])]));
  }
  return value;
}

/**
 * What an approval is bound to: the operation, its arguments as checked (without the
 * Idempotency-Key: a retry may come with a new one and is still the same call) and what they
 * resolve to, the amount and currency the call would create.
 */
export function argumentsHash(operation: string, input: Record<string, unknown>, spend: Spend | null): Buffer {
  const { idempotency_key: _key, ...rest } = input;
  return createHash('sha256').update(JSON.stringify([operation, canonical(rest), spend && [spend.currency, spend.amountMinor]])).digest();
}

/** A call as an approval sees it. */
export interface ApprovalCall {
  operation: string;
  hash: Buffer;
  spend: Spend | null;
}

/** The dashboard page of an approval. */
export function approvalPath(approval: Pick<ApprovalRow, 'id' | 'business_id' | 'livemode'>): string {
  return `/dashboard/businesses/${encodeURIComponent(approval.business_id)}/${approval.livemode ? 'live' : 'test'}/agents/approvals/${encodeURIComponent(approval.id)}`;
}

/** The calling agent's own approval request by id (its connection, business and mode); undefined for any other. */
export async function ownApproval(db: Db, principal: Principal, id: string): Promise<ApprovalRow | undefined> {
  if (principal.actor.kind !== 'agent') return undefined;
  return db.selectFrom('agent_approvals').selectAll().where('id', '=', id).where('connection_id', '=', principal.actor.connectionId)
    .where('business_id', '=', principal.businessId).where('livemode', '=', principal.livemode).executeTakeFirst();
}

interface Deps {
  db: Db;
  clock: Clock;
  config: { baseUrl: string };
}

/**
 * The refusal of a call beyond the policy: an approval request for it (the pending one already
 * asked for this very call, or a new one), and `403 approval_required` naming its page.
 */
export async function approvalRequired(deps: Deps, principal: Principal, connectionId: string, call: ApprovalCall & { shown: Record<string, unknown>; reasons: string[] }): Promise<ApiError> {
  const now = deps.clock.now();
  const approval = await deps.db.transaction().execute(async (trx) => {
    // One pending request per call: an agent retrying before anyone decided does not ask again.
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`approval:${connectionId}`}, 0))`.execute(trx);
    const pending = await trx.selectFrom('agent_approvals').selectAll()
      .where('connection_id', '=', connectionId).where('operation', '=', call.operation).where('arguments_hash', '=', call.hash)
      .where('status', '=', 'pending').where('expires_at', '>', now).executeTakeFirst();
    if (pending) return pending;
    // A call a person declined is not asked again until that decision expires: the agent changes it or asks its user.
    const declined = await trx.selectFrom('agent_approvals').select('id')
      .where('connection_id', '=', connectionId).where('operation', '=', call.operation).where('arguments_hash', '=', call.hash)
      .where('status', '=', 'declined').where('expires_at', '>', now).executeTakeFirst();
    if (declined) return declined.id;
    const made = await trx.insertInto('agent_approvals').values({
      id: newId('apr'), business_id: principal.businessId, livemode: principal.livemode, connection_id: connectionId,
      operation: call.operation, arguments: JSON.stringify(call.shown), arguments_hash: call.hash, reasons: call.reasons,
      amount_minor: call.spend?.amountMinor ?? null, currency: call.spend?.currency ?? null,
      status: 'pending', created_at: now, expires_at: new Date(now.getTime() + APPROVAL_TTL_MS),
    }).returningAll().executeTakeFirstOrThrow();
    await recordActivity(trx, principal, 'agent_approval.requested', made.id, { operation: call.operation, reasons: call.reasons }, now);
    return made;
  });
  if (typeof approval === 'string') {
    return new ApiError('approval_invalid', `A person declined exactly this call (approval ${approval}); nothing was done. Change it, or ask the user what to do.`);
  }
  return refusal(deps, approval);
}

function refusal(deps: Deps, approval: ApprovalRow): ApiError {
  const url = `${deps.config.baseUrl}${approvalPath(approval)}`;
  const why = approval.reasons.join('; ');
  return new ApiError('approval_required', {
    rest: `This call needs a person's approval (${why}); nothing was done. Ask a person who manages agents to approve it at ${url}, then repeat the same request with the header Approval-Id: ${approval.id}.`,
    tool: `This call needs a person's approval (${why}); nothing was done. Ask the user to open ${url} and approve it (a person who manages agents in this business), then call this tool again with the same arguments and approval_id "${approval.id}".`,
  }, undefined, { approvalUrl: url });
}

function invalid(message: string): ApiError {
  return new ApiError('approval_invalid', {
    rest: `${message} Repeat the request without Approval-Id to ask for a new approval.`,
    tool: `${message} Call the tool again without approval_id to ask for a new approval.`,
  }, 'approval_id');
}

/**
 * Takes an approved approval for this call (single use): by its id when the agent sent one, else
 * the approved one for these exact arguments if there is one (the retry an MCP client makes after
 * its user approved). Null when there is none and none was named; refuses a named one that does
 * not allow this call, and answers approval_required again while it waits for a person.
 */
export async function takeApproval(deps: Deps, principal: Principal, connectionId: string, call: ApprovalCall, named: string | undefined): Promise<ApprovalRow | null> {
  const now = deps.clock.now();
  if (named === undefined) {
    const taken = await sql<ApprovalRow>`UPDATE agent_approvals SET status = 'used', used_at = ${now}
      WHERE id = (SELECT id FROM agent_approvals WHERE connection_id = ${connectionId} AND operation = ${call.operation}
        AND arguments_hash = ${call.hash} AND status = 'approved' AND expires_at > ${now} ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
      AND status = 'approved' RETURNING *`.execute(deps.db);
    const row = taken.rows[0] ?? null;
    if (row) await recordActivity(deps.db, principal, 'agent_approval.used', row.id, { operation: row.operation }, now);
    return row;
  }
  const row = await deps.db.selectFrom('agent_approvals').selectAll().where('id', '=', named).where('connection_id', '=', connectionId).executeTakeFirst();
  if (!row) throw invalid(`No approval ${named} was asked for by this agent.`);
  if (row.operation !== call.operation) throw invalid(`Approval ${named} was given for another operation (${row.operation}): an approval allows exactly the call it was asked for.`);
  if (!row.arguments_hash.equals(call.hash)) {
    const approved = row.amount_minor === null || row.currency === null ? null : formatMoney(Number(row.amount_minor), row.currency);
    const now = call.spend && formatMoney(call.spend.amountMinor, call.spend.currency);
    throw invalid(approved !== null && now !== null && approved !== now
      ? `Approval ${named} was given for ${approved}; this call now comes to ${now} (what it resolves to changed since): an approval allows exactly the amount it was asked for.`
      : `Approval ${named} was given for other arguments: an approval allows exactly the call it was asked for.`);
  }
  if (row.status === 'declined') throw invalid(`Approval ${named} was declined.`);
  if (row.status === 'withdrawn') throw invalid(`Approval ${named} was withdrawn by a person before it was used.`);
  if (row.status === 'used') throw invalid(`Approval ${named} was used already: an approval allows one call.`);
  if (row.expires_at <= now) throw invalid(`Approval ${named} expired.`);
  if (row.status === 'pending') throw refusal(deps, row);
  const taken = await deps.db.updateTable('agent_approvals').set({ status: 'used', used_at: now })
    .where('id', '=', row.id).where('status', '=', 'approved').returningAll().executeTakeFirst();
  if (!taken) throw invalid(`Approval ${named} was used already: an approval allows one call.`);
  await recordActivity(deps.db, principal, 'agent_approval.used', taken.id, { operation: taken.operation }, now);
  return taken;
}

/** Gives back an approval whose call was refused for another reason (nothing was done): it may be used again. */
export async function returnApproval(deps: Pick<Deps, 'db'>, approval: ApprovalRow): Promise<void> {
  await deps.db.updateTable('agent_approvals').set({ status: 'approved', used_at: null }).where('id', '=', approval.id).where('status', '=', 'used').execute();
}

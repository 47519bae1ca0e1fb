import { sql } from 'kysely';
import { z } from 'zod';
import { heldByAgents, readsOnly } from '../auth/scopes.ts';
import { formatMoney, type Currency } from '../core/money.ts';
import type { Db } from '../db/database.ts';
import type { OperationContext } from '../verbs/context.ts';
import { Answer, type Operation, type Spend } from '../verbs/operation.ts';
import { approvalRequired, argumentsHash, returnApproval, takeApproval, type ApprovalRow } from './approvals.ts';

// What a connected agent may do with money (issue 24): per currency it may use, the most per
// created payment link, checkout or checkout session and the most created per UTC day; and whether
// its Live creates and changes wait for a person. Within the policy the agent works unattended;
// beyond it the call is not done and waits for a person's approval (approvals.ts). Secret keys
// and people are not concerned: the policy belongs to the connection a person approved.

export interface SpendLimit {
  currency: Currency;
  perObjectMinor: number;
  perDayMinor: number;
}

export interface SpendPolicy {
  liveNeedsApproval: boolean;
  limits: SpendLimit[];
}

/** What the approval page offers and connections made before policies got: every currency, 500.00 each, 2,000.00 a day, and a person's yes for Live. */
export const DEFAULT_POLICY: SpendPolicy = {
  liveNeedsApproval: true,
  limits: (['USD', 'EUR', 'GBP', 'CAD', 'AUD'] as const).map((currency) => ({ currency, perObjectMinor: 50_000, perDayMinor: 200_000 })),
};

export async function readPolicy(db: Db, connectionId: string): Promise<SpendPolicy> {
  const [connection, limits] = await Promise.all([
    db.selectFrom('agent_connections').select('live_needs_approval').where('id', '=', connectionId).executeTakeFirst(),
    db.selectFrom('agent_spend_limits').selectAll().where('connection_id', '=', connectionId).orderBy('currency').execute(),
  ]);
  return {
    liveNeedsApproval: connection?.live_needs_approval ?? true,
    limits: limits.map((row) => ({ currency: row.currency as Currency, perObjectMinor: Number(row.per_object_minor), perDayMinor: Number(row.per_day_minor) })),
  };
}

/** Replaces a connection's policy (inside the caller's transaction). */
export async function writePolicy(db: Db, connectionId: string, policy: SpendPolicy): Promise<void> {
  await db.updateTable('agent_connections').set({ live_needs_approval: policy.liveNeedsApproval }).where('id', '=', connectionId).execute();
  await db.deleteFrom('agent_spend_limits').where('connection_id', '=', connectionId).execute();
  if (policy.limits.length > 0) {
    await db.insertInto('agent_spend_limits').values(policy.limits.map((limit) => ({
      connection_id: connectionId, currency: limit.currency, per_object_minor: limit.perObjectMinor, per_day_minor: limit.perDayMinor,
    }))).execute();
  }
}

/** The UTC day a moment counts toward. */
export function spendDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** What the connection created today, per currency (minor units). */
export async function createdToday(db: Db, connectionId: string, now: Date): Promise<Map<string, number>> {
  const rows = await db.selectFrom('agent_spend_days').select(['currency', 'created_minor'])
    .where('connection_id', '=', connectionId).where('day', '=', spendDay(now)).execute();
  return new Map(rows.map((row) => [row.currency, Number(row.created_minor)]));
}

/**
 * Counts `spend` toward today's total: with `limit`, only if the total stays within it (one
 * conditional upsert: of two calls at the edge, exactly one passes, whichever instance runs it).
 */
async function count(db: Db, connectionId: string, spend: Spend, day: string, limit: number | null): Promise<boolean> {
  const within = limit === null ? sql`true` : sql`agent_spend_days.created_minor + EXCLUDED.created_minor <= ${limit}::bigint`;
  const result = await sql`INSERT INTO agent_spend_days (connection_id, day, currency, created_minor)
    SELECT ${connectionId}, ${day}::date, ${spend.currency}, ${spend.amountMinor}::bigint WHERE ${limit === null ? sql`true` : sql`${spend.amountMinor}::bigint <= ${limit}::bigint`}
    ON CONFLICT (connection_id, day, currency) DO UPDATE SET created_minor = agent_spend_days.created_minor + EXCLUDED.created_minor WHERE ${within}
    RETURNING created_minor`.execute(db);
  return result.rows.length === 1;
}

async function uncount(db: Db, connectionId: string, spend: Spend, day: string): Promise<void> {
  await db.updateTable('agent_spend_days').set((eb) => ({ created_minor: eb('created_minor', '-', spend.amountMinor) }))
    .where('connection_id', '=', connectionId).where('day', '=', day).where('currency', '=', spend.currency).execute();
}


/** Why the call is beyond the policy, before the daily total (which is counted, not read). */
function reasonsBeyond(policy: SpendPolicy, livemode: boolean, spend: Spend | null): string[] {
  const reasons: string[] = [];
  if (livemode && policy.liveNeedsApproval) reasons.push('this agent\'s Live creates and changes each need a person\'s approval');
  if (spend) {
    const limit = policy.limits.find((each) => each.currency === spend.currency);
    if (!limit) reasons.push(`${spend.currency} is not among the currencies this agent may use (${policy.limits.map((each) => each.currency).join(', ') || 'none'})`);
    else if (spend.amountMinor > limit.perObjectMinor) reasons.push(`${formatMoney(spend.amountMinor, spend.currency)} is over this agent's limit of ${formatMoney(limit.perObjectMinor, spend.currency)} per payment`);
  }
  return reasons;
}

const approvalIdField = z.string().max(64).optional()
  .describe('The id of a person\'s approval of exactly this call (from an approval_required error\'s approval_url), for a connected agent\'s call that needs a person\'s approval. Single use. Over REST: the Approval-Id header.');

/**
 * Whether a connected agent's call of the operation can wait for a person's approval: a change
 * (a scope that is not a read) that agents can hold the scope of. Webhook endpoints and their
 * deliveries are never an agent's (spec 5.3), so they take no approval.
 */
export function asksApproval(operation: Pick<Operation, 'scope'>): boolean {
  return !readsOnly(operation.scope) && heldByAgents(operation.scope);
}

/**
 * The operation as connected agents meet it: one that can ask for approval takes an approval id
 * (the Approval-Id header over REST), and an agent's call beyond its policy is refused with
 * approval_required until a person approves it. Every other operation is unchanged.
 */
export function withAgentPolicy(operation: Operation): Operation {
  if (!asksApproval(operation)) return operation;
  const { run } = operation;
  return {
    ...operation,
    input: operation.input.extend({ approval_id: approvalIdField }),
    http: { ...operation.http, headers: { ...operation.http.headers, 'Approval-Id': 'approval_id' } },
    async run(ctx, input) {
      const { approval_id: named, ...rest } = input as Record<string, unknown> & { approval_id?: string };
      const { actor } = ctx.principal;
      if (actor.kind !== 'agent') return run(ctx, rest as never);
      return runForAgent(operation, run, ctx, actor.connectionId, rest, named);
    },
  };
}

/**
 * The arguments as the caller sent them (a person reads them as typed: "60.00", not 6000), but
 * only those the operation knows: spec 7.1 ignores unknown fields, so they are dropped before a
 * person is asked (a key "amount\u200b" is never shown as a second amount).
 */
export function knownArguments(sent: unknown, parsed: unknown): unknown {
  const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
  if (Array.isArray(sent) && Array.isArray(parsed)) return sent.slice(0, parsed.length).map((each, index) => knownArguments(each, parsed[index]));
  if (isObject(sent) && isObject(parsed)) {
    return Object.fromEntries(Object.entries(sent).filter(([key]) => Object.hasOwn(parsed, key)).map(([key, value]) => [key, knownArguments(value, parsed[key])]));
  }
  return sent;
}

async function runForAgent(operation: Operation, run: Operation['run'], ctx: OperationContext, connectionId: string, input: Record<string, unknown>, named: string | undefined) {
  // A replay of an earlier call (its Idempotency-Key) creates nothing: it answers the original, whatever the limits say now.
  if (named === undefined && operation.replays && await operation.replays(ctx, input as never)) return run(ctx, input as never);
  const policy = await readPolicy(ctx.db, connectionId);
  const spend = operation.spends ? await operation.spends(ctx, input as never) : null;
  const call = { operation: operation.name, hash: argumentsHash(operation.name, input, spend), spend };
  const day = spendDay(ctx.clock.now());
  const approval: ApprovalRow | null = await takeApproval(ctx, ctx.principal, connectionId, call, named);
  let counted = false;
  if (approval) {
    // An approved call is done whatever the limits; what it creates still counts toward the day.
    if (spend) counted = await count(ctx.db, connectionId, spend, day, null);
  } else {
    const reasons = reasonsBeyond(policy, ctx.principal.livemode, spend);
    if (reasons.length === 0 && spend) {
      const limit = policy.limits.find((each) => each.currency === spend.currency)!;
      counted = await count(ctx.db, connectionId, spend, day, limit.perDayMinor);
      if (!counted) {
        const today = (await createdToday(ctx.db, connectionId, ctx.clock.now())).get(spend.currency) ?? 0;
        reasons.push(`${formatMoney(spend.amountMinor, spend.currency)} more would pass this agent's limit of ${formatMoney(limit.perDayMinor, spend.currency)} a day (${formatMoney(today, spend.currency)} created today)`);
      }
    }
    if (reasons.length > 0) {
      const { approval_id: _named, idempotency_key: _key, ...shown } = knownArguments(ctx.arguments ?? input, input) as Record<string, unknown>;
      throw await approvalRequired(ctx, ctx.principal, connectionId, { ...call, shown, reasons });
    }
  }
  try {
    const output = await run(ctx, input as never);
    // A replay of an Idempotency-Key created nothing new: it does not count again.
    if (counted && spend && output instanceof Answer && output.status === 200) await uncount(ctx.db, connectionId, spend, day);
    return output;
  } catch (error) {
    if (counted && spend) await uncount(ctx.db, connectionId, spend, day);
    if (approval) await returnApproval(ctx, approval);
    throw error;
  }
}

import { z } from 'zod';
import { approvalPath, type ApprovalRow } from '../../agents/approvals.ts';
import { createdToday, readPolicy, writePolicy, type SpendPolicy } from '../../agents/policy.ts';
import { recordActivity } from '../../audit/activity.ts';
import { ApiError } from '../../core/errors.ts';
import { formatAmount, type Currency } from '../../core/money.ts';
import { coded } from '../../core/validation.ts';
import { defineAction } from '../../verbs/action.ts';
import type { OperationContext } from '../../verbs/context.ts';
import { getAgentConnection } from './queries.ts';
import { AgentConnectionIdInput, SpendPolicyFields, toAgentConnectionOut, type AgentConnectionOut } from './schemas.ts';

// A connected agent's spend policy (agents/policy.ts), read and changed by people, and the
// approvals its calls beyond the policy wait for, decided by people who manage agents.

export const SpendPolicyInput = AgentConnectionIdInput.extend(SpendPolicyFields.shape);

export interface AgentLimitOut {
  currency: Currency;
  per_object: string;
  per_day: string;
  created_today: string;
}

export interface AgentApprovalOut {
  id: string;
  operation: string;
  arguments: Record<string, unknown>;
  /** What the call would create, resolved when it was asked for ("60.00"); null for a call that creates no amount. */
  amount: string | null;
  currency: Currency | null;
  reasons: string[];
  /** pending, approved, declined, withdrawn or used; an undecided or unused one past expires reads as expired. */
  status: ApprovalRow['status'] | 'expired';
  created: Date;
  expires: Date;
  decided_by: string | null;
  decided: Date | null;
  used: Date | null;
  connection_id: string;
  path: string;
}

export interface AgentConnectionDetail {
  connection: AgentConnectionOut;
  live_needs_approval: boolean;
  limits: AgentLimitOut[];
  approvals: AgentApprovalOut[];
}

export function toApprovalOut(row: ApprovalRow, now: Date): AgentApprovalOut {
  const open = row.status === 'pending' || row.status === 'approved';
  return {
    id: row.id, operation: row.operation, arguments: row.arguments, reasons: row.reasons,
    amount: row.amount_minor === null ? null : formatAmount(Number(row.amount_minor)), currency: row.currency as Currency | null,
    status: open && row.expires_at <= now ? 'expired' : row.status,
    created: row.created_at, expires: row.expires_at, decided_by: row.decided_by, decided: row.decided_at, used: row.used_at,
    connection_id: row.connection_id, path: approvalPath(row),
  };
}

async function detail(ctx: OperationContext, id: string): Promise<AgentConnectionDetail> {
  const connection = await getAgentConnection(ctx.db, ctx.principal, id);
  const now = ctx.clock.now();
  const [policy, today, approvals] = await Promise.all([
    readPolicy(ctx.db, connection.id),
    createdToday(ctx.db, connection.id, now),
    ctx.db.selectFrom('agent_approvals').selectAll().where('connection_id', '=', connection.id).orderBy('created_at', 'desc').limit(50).execute(),
  ]);
  return {
    connection: toAgentConnectionOut(connection),
    live_needs_approval: policy.liveNeedsApproval,
    limits: policy.limits.map((limit) => ({
      currency: limit.currency, per_object: formatAmount(limit.perObjectMinor), per_day: formatAmount(limit.perDayMinor),
      created_today: formatAmount(today.get(limit.currency) ?? 0),
    })),
    approvals: approvals.map((row) => toApprovalOut(row, now)),
  };
}

/** One connected agent: its policy, what it created today against each limit, and its latest approval requests. */
export const readAgentConnection = defineAction({
  name: 'read_agent_connection',
  title: 'See a connected agent',
  role: 'viewer',
  modeScoped: true,
  effect: 'reads',
  input: AgentConnectionIdInput,
  run: (ctx, input) => detail(ctx, input.id),
});

/** Changes what a connected agent may do with money; it applies from the agent's next call. */
export const updateAgentPolicy = defineAction({
  name: 'update_agent_policy',
  title: 'Change an agent\'s spend policy',
  role: 'developer',
  modeScoped: true,
  effect: 'changes',
  input: SpendPolicyInput,
  async run(ctx, input) {
    const connection = await getAgentConnection(ctx.db, ctx.principal, input.id);
    if (connection.disconnected_at !== null) throw new ApiError('invalid_state', 'This agent is disconnected: its policy no longer applies to anything.');
    const policy: SpendPolicy = {
      liveNeedsApproval: input.live_needs_approval,
      limits: input.limits.map((limit) => ({ currency: limit.currency, perObjectMinor: limit.per_object, perDayMinor: limit.per_day })),
    };
    await ctx.db.transaction().execute(async (trx) => {
      await writePolicy(trx, connection.id, policy);
      await recordActivity(trx, ctx.principal, 'agent.policy_changed', connection.id, {
        live_needs_approval: input.live_needs_approval,
        limits: input.limits.map((limit) => `${limit.currency} ${formatAmount(limit.per_object)} per payment, ${formatAmount(limit.per_day)} a day`),
      }, ctx.clock.now());
    });
    return detail(ctx, connection.id);
  },
});

/** The approval requests of the caller's business and mode waiting for a person, newest first. */
export const listPendingApprovals = defineAction({
  name: 'list_pending_approvals',
  title: 'List agents\' approval requests',
  role: 'viewer',
  modeScoped: true,
  effect: 'reads',
  input: z.object({}),
  async run(ctx) {
    const now = ctx.clock.now();
    const rows = await ctx.db.selectFrom('agent_approvals').selectAll()
      .where('business_id', '=', ctx.principal.businessId).where('livemode', '=', ctx.principal.livemode)
      .where('status', '=', 'pending').where('expires_at', '>', now).orderBy('created_at', 'desc').limit(100).execute();
    return rows.map((row) => toApprovalOut(row, now));
  },
});

/** Each decision: the state it applies to, the state it leaves, and what the activity records. */
const DECISIONS = {
  approve: { from: 'pending', to: 'approved', activity: 'agent_approval.approved' },
  decline: { from: 'pending', to: 'declined', activity: 'agent_approval.declined' },
  withdraw: { from: 'approved', to: 'withdrawn', activity: 'agent_approval.withdrawn' },
} as const;

function notDecided(row: ApprovalRow, decision: keyof typeof DECISIONS, now: Date): string {
  if (row.expires_at <= now) return 'This request expired: the agent has to ask again.';
  if (decision !== 'withdraw') return row.status === 'approved' ? 'This request was approved already: withdraw the approval instead, while the agent has not used it.' : 'This request was decided already.';
  return row.status === 'used' ? 'The agent used this approval already: what it did stays done.' : 'Only an approval not used yet can be withdrawn.';
}

async function approvalOf(ctx: OperationContext, id: string): Promise<ApprovalRow> {
  const row = await ctx.db.selectFrom('agent_approvals').selectAll().where('id', '=', id)
    .where('business_id', '=', ctx.principal.businessId).where('livemode', '=', ctx.principal.livemode).executeTakeFirst();
  if (!row) throw new ApiError('not_found', 'No approval request has this id in this business and mode.');
  return row;
}

/** One approval request: the operation, its exact arguments, why it needs a person, and its fate. */
export const readAgentApproval = defineAction({
  name: 'read_agent_approval',
  title: 'See an agent\'s approval request',
  role: 'viewer',
  modeScoped: true,
  effect: 'reads',
  input: z.object({ id: z.string() }),
  async run(ctx, input): Promise<{ approval: AgentApprovalOut; connection: AgentConnectionOut }> {
    const row = await approvalOf(ctx, input.id);
    return { approval: toApprovalOut(row, ctx.clock.now()), connection: toAgentConnectionOut(await getAgentConnection(ctx.db, ctx.principal, row.connection_id)) };
  },
});

/**
 * A person who manages agents approves or declines a pending request, or withdraws an approval
 * the agent has not used yet. An approval allows the one call it shows, once, until it expires
 * (24 hours after it was asked for).
 */
export const decideAgentApproval = defineAction({
  name: 'decide_agent_approval',
  title: 'Approve or decline an agent\'s request',
  role: 'developer',
  modeScoped: true,
  effect: 'changes',
  peopleOnly: true,
  input: z.object({ id: z.string(), decision: z.enum(['approve', 'decline', 'withdraw'], coded('invalid_request', 'decision must be approve, decline or withdraw.')) }),
  async run(ctx, input) {
    const { actor } = ctx.principal;
    if (actor.kind !== 'person') throw new ApiError('insufficient_role', 'An agent\'s request is decided by a person in the dashboard.');
    const now = ctx.clock.now();
    const row = await approvalOf(ctx, input.id);
    const connection = await getAgentConnection(ctx.db, ctx.principal, row.connection_id);
    if (input.decision === 'approve' && connection.disconnected_at !== null) throw new ApiError('invalid_state', 'This agent was disconnected: its request can only be declined.');
    const change = DECISIONS[input.decision];
    const decided = await ctx.db.transaction().execute(async (trx) => {
      const done = await trx.updateTable('agent_approvals')
        .set({ status: change.to, decided_by: actor.email, decided_at: now })
        .where('id', '=', row.id).where('status', '=', change.from).where('expires_at', '>', now).returningAll().executeTakeFirst();
      if (!done) throw new ApiError('invalid_state', notDecided(row, input.decision, now));
      await recordActivity(trx, ctx.principal, change.activity, row.id, { operation: row.operation, connection_id: row.connection_id }, now);
      return done;
    });
    return toApprovalOut(decided, now);
  },
});

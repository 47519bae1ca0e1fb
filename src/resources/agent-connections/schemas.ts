import { z } from 'zod';
import { unixSeconds, unixSecondsOrNull } from '../../core/clock.ts';
import { coded } from '../../core/validation.ts';
import { CURRENCIES, formatAmount, parseAmount } from '../../core/money.ts';
import type { AgentConnectionRow, KeyAccess } from '../../db/schema.ts';
import { idInput } from '../shared/ids.ts';

export const AgentConnectionIdInput = idInput('con');

/** The most a daily total may be set to: 10,000,000.00. */
const MAX_DAILY_MINOR = 1_000_000_000;

const limitAmount = (field: string, max: number) => z.string(coded('invalid_amount', `${field} must be an amount such as "500.00".`))
  .transform((text, ctx) => {
    const minor = parseAmount(text.trim());
    if (minor === null || minor < 100 || minor > max) {
      ctx.addIssue({ code: 'custom', message: coded('invalid_amount', `${field} must be an amount from 1.00 to ${formatAmount(max)}, such as "500.00".`).error });
      return z.NEVER;
    }
    return minor;
  });

/** What a connected agent may do with money (agents/policy.ts): chosen when it is approved, changed later. */
export const SpendPolicyFields = z.object({
  live_needs_approval: z.boolean(coded('invalid_request', 'live_needs_approval must be true or false.')),
  limits: z.array(z.object({
    currency: z.enum(CURRENCIES, coded('invalid_currency', `currency must be one of ${CURRENCIES.join(', ')}.`)),
    per_object: limitAmount('The limit per payment', 10_000_000),
    per_day: limitAmount('The limit per day', MAX_DAILY_MINOR),
  })).max(CURRENCIES.length).superRefine((limits, ctx) => {
    const seen = new Set<string>();
    limits.forEach((limit, index) => {
      if (seen.has(limit.currency)) ctx.addIssue({ code: 'custom', path: [index, 'currency'], message: coded('invalid_currency', `${limit.currency} is given twice.`).error });
      seen.add(limit.currency);
      if (limit.per_day < limit.per_object) {
        ctx.addIssue({ code: 'custom', path: [index, 'per_day'], message: coded('invalid_amount', `The limit per day in ${limit.currency} must be at least its limit per payment.`).error });
      }
    });
  }),
});

export const ApproveAgentRequestInput = z.object({
  request: z.string(coded('invalid_request', 'request must name the sign-in request.')).min(1, coded('invalid_request', 'request must name the sign-in request.')),
  access: z.enum(['full', 'read_only'], coded('invalid_access', 'access must be full or read_only.')),
  /** Absent: the default policy (agents/policy.ts DEFAULT_POLICY). */
  policy: SpendPolicyFields.optional(),
});

export interface AgentConnectionOut {
  id: string;
  object: 'agent_connection';
  /** What the client calls itself: unverified. */
  client_name: string | null;
  client_id: string;
  livemode: boolean;
  access: KeyAccess;
  scopes: string[];
  approved_by: { person_id: string; email: string };
  created: number;
  last_used: number | null;
  disconnected: number | null;
  disconnected_why: string | null;
}

export function toAgentConnectionOut(row: AgentConnectionRow & { approver_email: string }): AgentConnectionOut {
  return {
    id: row.id,
    object: 'agent_connection',
    client_name: row.client_name,
    client_id: row.client_id,
    livemode: row.livemode,
    access: row.access,
    scopes: row.scopes,
    approved_by: { person_id: row.approved_by, email: row.approver_email },
    created: unixSeconds(row.created_at),
    last_used: unixSecondsOrNull(row.last_used_at),
    disconnected: unixSecondsOrNull(row.disconnected_at),
    disconnected_why: row.disconnected_why,
  };
}

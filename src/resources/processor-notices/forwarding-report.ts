import { z } from 'zod';
import { coded } from '../../core/validation.ts';
import { publicText } from '../../core/public-text.ts';
import type { ForwardingReport } from '../networks/served.ts';

// What a processor.status says of each network's forwarding (issue 30, must-have 5), an additive
// part of the notice: whether forwards can happen, and the forwards failed or pending past the
// processor's bound (10 minutes), at most 200, each with a reason merchants may read. Texts are
// cut to one line without URL paths, queries or credentials before they are stored.

const invalid = (message: string) => coded('invalid_request', message);
const plain = (max: number) => z.string(invalid('problem and reason must be sentences or null.')).max(5000).transform((text) => publicText(text, max)).nullable();

/** The most forwards one status names per network (the processor's DELAYS_REPORTED). */
export const DELAYED_PER_NETWORK = 200;

const DelayedForward = z.object({
  payment_id: z.string(invalid('payment_id must be a string.')).min(1).max(100),
  deposit_address: z.string(invalid('deposit_address must be a string.')).min(1).max(100).toLowerCase(),
  state: z.enum(['failed', 'pending'], invalid('state must be failed or pending.')),
  since: z.number(invalid('since must be Unix seconds.')).int().min(1).max(Number.MAX_SAFE_INTEGER),
  reason: plain(200),
});

export const ForwardingStatus = z.object({
  healthy: z.boolean(invalid('forwarding.healthy must be true or false.')),
  trouble: z.enum(['gas_wallet', 'forwards_failed', 'forwards_late'], invalid('forwarding.trouble must be gas_wallet, forwards_failed, forwards_late or null.')).nullable(),
  problem: plain(300),
  delayed: z.array(DelayedForward).max(DELAYED_PER_NETWORK),
});
export type ForwardingStatus = z.output<typeof ForwardingStatus>;

export function forwardingReportOf(status: ForwardingStatus): ForwardingReport {
  return {
    healthy: status.healthy, trouble: status.trouble, problem: status.problem,
    delayed: status.delayed.map((each) => ({
      paymentId: each.payment_id, depositAddress: each.deposit_address, state: each.state, since: new Date(each.since * 1000), reason: each.reason,
    })),
  };
}

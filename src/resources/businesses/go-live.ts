import { z } from 'zod';
import { coinLabel, isAcceptedCoin } from '../../core/payment-request.ts';
import { defineAction } from '../../verbs/action.ts';
import { isServed, networkReports } from '../networks/served.ts';
import { configuredProviders } from '../providers/adapters.ts';
import { findProvider } from '../providers/catalogue.ts';
import { publicText } from '../../core/public-text.ts';

// What Live needs before a buyer can pay (issue 22, must-have 7), read for the dashboard's Live
// settings: the payout wallet, the networks a healthy processor watches and forwards on (its latest reports),
// the card providers this deployment has keys for, and a Live webhook endpoint.

export interface GoLiveNetwork {
  network: string;
  /** The coins Live buyers are offered on it, named plainly ("USDC"). */
  tokens: string[];
  healthy: boolean;
  /** Healthy and reported recently enough: its coins are offered now. */
  served: boolean;
  reportedAt: Date;
  problem: string | null;
  /** False while its forwards cannot happen (failed, late, or a gas wallet that cannot pay): the report's words in forwardingProblem. */
  forwardsHappen: boolean;
  forwardingProblem: string | null;
}

export interface GoLiveChecklist {
  payoutWallet: string | null;
  networks: GoLiveNetwork[];
  /** Card providers with keys here, by name. */
  providers: string[];
  liveEndpoints: number;
  /** How recent a report must be, in seconds (PROCESSOR_STATUS_FRESH_SECONDS). */
  freshSeconds: number;
}

export const readGoLiveChecklist = defineAction({
  name: 'read_go_live_checklist',
  title: 'Read what Live needs before buyers can pay',
  role: 'viewer',
  modeScoped: false,
  effect: 'reads',
  input: z.object({}),
  async run(ctx): Promise<GoLiveChecklist> {
    const { principal } = ctx;
    const now = ctx.clock.now();
    const fresh = ctx.config.processorStatusFreshSeconds;
    const endpoints = await ctx.db.selectFrom('webhook_endpoints').select((eb) => eb.fn.countAll<number>().as('count'))
      .where('business_id', '=', principal.businessId).where('livemode', '=', true).where('deleted_at', 'is', null).executeTakeFirstOrThrow();
    return {
      payoutWallet: principal.business.payout_wallet,
      networks: (await networkReports(ctx.db)).map((report) => ({
        network: coinLabel(`${report.network}_usdc`).network,
        tokens: report.coins.filter(isAcceptedCoin).map((coin) => coinLabel(coin).token),
        healthy: report.healthy,
        served: isServed(report, now, fresh),
        reportedAt: report.reported_at,
        // Stored cut already; cut again as it is shown (a row written before the service cut them).
        problem: report.problem === null ? null : publicText(report.problem),
        forwardsHappen: report.forwarding_healthy !== false,
        forwardingProblem: report.forwarding_problem === null ? null : publicText(report.forwarding_problem),
      })),
      providers: configuredProviders(ctx.config.providers).map((id) => findProvider(id)?.name ?? id),
      liveEndpoints: Number(endpoints.count),
      freshSeconds: fresh,
    };
  },
});

import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import { queueMail } from '../../mail/outbox.ts';
import type { OperationContext } from '../../verbs/context.ts';

// Every owner learns of a payout wallet change (issue 21): every later Live payment is forwarded
// there, so a typo or a stolen session must not redirect money unnoticed. Written in the
// transaction that changes the wallet, through the outbox.

/** Who changed it, as the mail names them. */
function changedBy(principal: Principal): string {
  const { actor } = principal;
  if (actor.kind === 'person') return `${actor.email}, an owner, in the dashboard`;
  if (actor.kind === 'operator') return 'the service\'s operator';
  return 'the service';
}

export function payoutWalletChangedMail(input: {
  business: { id: string; name: string };
  from: string | null;
  to: string | null;
  by: string;
  at: Date;
  dashboardUrl: string;
}): { subject: string; body: string } {
  const { business } = input;
  return {
    subject: `The payout wallet of ${business.name} was changed`,
    body: [
      'Hello,',
      '',
      `The payout wallet of ${business.name} was changed. Live payments that start from now on are forwarded to the new wallet.`,
      '',
      `  Old wallet:  ${input.from ?? 'none'}`,
      `  New wallet:  ${input.to ?? 'none (Live payments cannot start)'}`,
      `  Changed by:  ${input.by}`,
      `  When:        ${input.at.toISOString().replace('T', ' ').slice(0, 19)} UTC`,
      '',
      `If you did not expect this, sign in to the dashboard (${input.dashboardUrl}), check Settings and the account's activity,`,
      'and set the right wallet again.',
      '',
      `You receive this as an owner of ${business.name} (${business.id}).`,
    ].join('\n'),
  };
}

/** Queues the mail to every owner of the caller's business, in the caller's transaction `trx`. */
export async function mailPayoutWalletChanged(trx: Db, ctx: OperationContext, change: { from: string | null; to: string | null; at: Date }): Promise<void> {
  const { principal } = ctx;
  await queueMail(trx, ctx, {
    kind: 'payout_wallet_changed',
    businessId: principal.businessId,
    recipients: trx.selectFrom('memberships as m').innerJoin('people as p', 'p.id', 'm.person_id').select('p.email')
      .where('m.business_id', '=', principal.businessId).where('m.role', '=', 'owner'),
    ...payoutWalletChangedMail({ business: principal.business, ...change, by: changedBy(principal), dashboardUrl: `${ctx.config.baseUrl}/dashboard` }),
  });
}

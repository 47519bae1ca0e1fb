import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import { queueMail } from '../../mail/outbox.ts';
import type { OperationContext } from '../../verbs/context.ts';

// Where all future money goes is the one setting a typo or a stolen session turns into lost
// money: every owner is told of each change (old and new address, who, when), in the
// transaction that makes it, so an owner who did not ask for it can act before money moves.

/** Who changed it, as the mail names them. */
function whoOf(principal: Principal): string {
  return principal.actor.kind === 'person' ? principal.actor.email : 'the service\'s operator';
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
      `The payout wallet of ${business.name} was changed. Live payments started from now on are forwarded to the new address.`,
      '',
      `  Before:   ${input.from ?? 'none'}`,
      `  Now:      ${input.to ?? 'none (Live payments cannot start until one is set)'}`,
      `  By:       ${input.by}`,
      `  When:     ${input.at.toISOString().replace('T', ' ').slice(0, 19)} UTC`,
      '',
      `If you did not expect this, sign in (${input.dashboardUrl}), check Settings, and set the right wallet:`,
      'payments already started keep the wallet they started with.',
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
    ...payoutWalletChangedMail({ business: principal.business, ...change, by: whoOf(principal), dashboardUrl: `${ctx.config.baseUrl}/dashboard` }),
  });
}

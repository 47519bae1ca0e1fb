import { sql } from 'kysely';
import { HOUR } from '../../core/clock.ts';
import { queueMail } from '../../mail/outbox.ts';
import type { AppContext } from '../../verbs/context.ts';
import type { NetworkStatus } from '../networks/served.ts';

// The operator is mailed (OPERATOR_EMAIL, through the outbox) when a network's forwards cannot
// happen, at most once an hour per cause: the network and its trouble (a gas wallet that cannot
// pay, forwards failed, forwards late). The hour is kept in operator_alerts and taken by a
// conditional upsert, so two service processes receiving statuses never both mail.

export const ALERT_AT_MOST_EVERY_MS = HOUR;
/** The forwards a mail names; `processor status` names them all. */
const NAMED_IN_MAIL = 20;

type Deps = Pick<AppContext, 'db' | 'clock' | 'config' | 'jobs'>;

/** Mails the operator of each network whose forwarding the status says is not healthy; answers how many mails were written. */
export async function alertOperator(deps: Deps, statuses: readonly NetworkStatus[]): Promise<number> {
  const email = deps.config.mail.operatorEmail;
  if (email === undefined) return 0;
  const now = deps.clock.now();
  let written = 0;
  for (const status of statuses) {
    const forwarding = status.forwarding;
    if (forwarding === undefined || forwarding.healthy) continue;
    const cause = `${status.network}:${forwarding.trouble ?? 'forwarding'}`;
    written += await deps.db.transaction().execute(async (trx) => {
      const taken = await trx.insertInto('operator_alerts').values({ cause, mailed_at: now })
        .onConflict((oc) => oc.column('cause').doUpdateSet({ mailed_at: now })
          .where('operator_alerts.mailed_at', '<=', new Date(now.getTime() - ALERT_AT_MOST_EVERY_MS)))
        .returning('cause').executeTakeFirst();
      if (!taken) return 0;
      const named = forwarding.delayed.slice(0, NAMED_IN_MAIL).map((each) =>
        `- ${each.paymentId} (deposit address ${each.depositAddress}), ${each.state === 'failed' ? 'failed' : 'pending'}, waiting since ${each.since.toISOString()}: ${each.reason ?? 'no reason given'}`);
      const more = forwarding.delayed.length - named.length;
      const body = [
        `Forwards on ${status.network} cannot happen: ${forwarding.problem ?? 'the processor did not say why.'}`,
        '',
        forwarding.delayed.length === 0 ? 'No payment is waiting yet: the next deposit will.' : 'Waiting to be forwarded:',
        ...named,
        ...(more > 0 ? [`- and ${more} more`] : []),
        '',
        'Their merchants see "Waiting to be forwarded: the service\'s operator has been told" on each payment.',
        'Run `npm run --silent cli -- processor status` for the whole state (--json names every forward).',
        `This mail is sent at most once an hour for this cause (${cause}).`,
      ].join('\n');
      return queueMail(trx, deps, {
        kind: 'operator_alert', businessId: null,
        recipients: trx.selectNoFrom(sql<string>`${email}::text`.as('email')),
        subject: `Forwards on ${status.network} cannot happen`, body,
      });
    });
  }
  return written;
}

import { keyIdOf, type Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import { ownedBy } from '../../db/owned.ts';
import type { WebhookEndpointRow } from '../../db/schema.ts';
import { PAYMENT_EVENT_TYPES } from '../../events/types.ts';
import { queueMail } from '../../mail/outbox.ts';
import type { OperationContext } from '../../verbs/context.ts';

// Spec 4.4: when a secret key adds a Live endpoint, the account's owners and developers are
// emailed which key added it (its name and hint, never the secret) and where it sends events:
// a key that leaked could otherwise point the account's events anywhere unnoticed. Written in
// the transaction that adds the endpoint; endpoints people add in the dashboard send nothing.

async function keyOf(db: Db, principal: Principal, keyId: string) {
  return db.selectFrom('api_keys').select(['id', 'name', 'secret_hint']).where('id', '=', keyId).where(ownedBy('api_keys', principal)).executeTakeFirstOrThrow();
}

export function endpointAddedMail(input: {
  business: { id: string; name: string };
  key: { id: string; name: string | null; secret_hint: string };
  endpoint: Pick<WebhookEndpointRow, 'id' | 'url' | 'description' | 'events' | 'created_at'>;
  dashboardUrl: string;
}): { subject: string; body: string } {
  const { business, key, endpoint } = input;
  const keyName = key.name === null ? `an unnamed key (${key.secret_hint})` : `"${key.name}" (${key.secret_hint})`;
  const events = endpoint.events.length === PAYMENT_EVENT_TYPES.length ? 'every payment event' : endpoint.events.join(', ');
  return {
    subject: `A Live webhook endpoint was added to ${business.name}`,
    body: [
      'Hello,',
      '',
      `A secret key added a webhook endpoint to ${business.name} in Live mode. Live payment events are sent to it from now on.`,
      '',
      `  Key:       ${keyName}, id ${key.id}`,
      `  Sends to:  ${endpoint.url}`,
      ...(endpoint.description ? [`  Label:     ${endpoint.description}`] : []),
      `  Events:    ${events}`,
      `  Endpoint:  ${endpoint.id}, added ${endpoint.created_at.toISOString().replace('T', ' ').slice(0, 16)} UTC`,
      '',
      `If you did not expect this, revoke the key in the dashboard (${input.dashboardUrl}, API keys in Live mode):`,
      'revoking it also removes the endpoints it added.',
      '',
      `You receive this as an owner or developer of ${business.name} (${business.id}).`,
    ].join('\n'),
  };
}

/**
 * When a secret key added `endpoint` in Live, queues the mail to the business's owners and
 * developers (not viewers), in the caller's transaction `trx`; otherwise does nothing.
 */
export async function mailEndpointAdded(trx: Db, ctx: OperationContext, endpoint: WebhookEndpointRow): Promise<void> {
  const { principal } = ctx;
  const keyId = keyIdOf(principal);
  if (keyId === null || !principal.livemode) return;
  const key = await keyOf(trx, principal, keyId);
  const mail = endpointAddedMail({ business: principal.business, key, endpoint, dashboardUrl: `${ctx.config.baseUrl}/dashboard` });
  await queueMail(trx, ctx, {
    kind: 'webhook_endpoint_added',
    businessId: principal.businessId,
    recipients: trx.selectFrom('memberships as m').innerJoin('people as p', 'p.id', 'm.person_id').select('p.email')
      .where('m.business_id', '=', principal.businessId).where('m.role', 'in', ['owner', 'developer']),
    ...mail,
  });
}

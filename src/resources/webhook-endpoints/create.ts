import { sql } from 'kysely';
import { recordActivity } from '../../audit/activity.ts';
import { keyIdOf } from '../../auth/principal.ts';
import type { AppContext, OperationContext } from '../../verbs/context.ts';
import { ApiError } from '../../core/errors.ts';
import { newId, randomBase62 } from '../../core/ids.ts';
import { isUniqueViolation } from '../../db/database.ts';
import { Refused, vetDestination } from '../../net/destinations.ts';
import { assertWritable } from '../shared/business-rules.ts';
import { mailEndpointAdded } from './notify-added.ts';
import { toWebhookEndpointOut, type CreateWebhookEndpointInput, type WebhookEndpointOut } from './schemas.ts';

export const MAX_ENDPOINTS_PER_MODE = 10;

function invalidUrl(message: string): ApiError {
  return new ApiError('invalid_url', message, 'url');
}

export function duplicateUrl(): ApiError {
  return new ApiError('duplicate_url', {
    rest: 'An endpoint with this url already exists in this mode.',
    tool: 'An endpoint with this url already exists in this mode: find its id with list_webhook_endpoints (to add it anew, call delete_webhook_endpoint with that id first).',
  }, 'url');
}

/**
 * Where an endpoint may point (spec 4.4, 7.5): https:// on the public internet. Test endpoints
 * may also use this machine (http://localhost) for local development, but not the service's own
 * ports; nothing else private. A name that does not resolve yet is accepted: every send checks it again.
 */
export async function checkEndpointUrl(ctx: Pick<AppContext, 'resolveHost' | 'config' | 'ownPorts'>, livemode: boolean, text: string): Promise<string> {
  const rules = { livemode, testLoopback: ctx.config.webhooks.testLoopback, ownPorts: ctx.ownPorts, resolve: ctx.resolveHost, whenUnresolved: 'accept' as const };
  try {
    return (await vetDestination(text, rules)).url.href;
  } catch (error) {
    if (!(error instanceof Refused)) throw error;
    switch (error.fault) {
      case 'credentials': throw invalidUrl('url must not contain a username or password.');
      case 'not_public': throw invalidUrl(`url must be on the public internet: ${error.message}.`);
      case 'own_port': throw invalidUrl(`url must not point at this service: ${error.message}; use your receiver's port.`);
      default: throw invalidUrl(livemode ? 'url must be a full https:// address.' : 'url must be a full https:// address (or http://localhost in Test mode).');
    }
  }
}

/** Adds an endpoint in the caller's mode; the response carries the signing secret, once. */
export async function createWebhookEndpoint(ctx: OperationContext, input: CreateWebhookEndpointInput): Promise<WebhookEndpointOut & { secret: string }> {
  const { principal } = ctx;
  assertWritable(principal);
  const url = await checkEndpointUrl(ctx, principal.livemode, input.url);
  const secret = `whsec_${randomBase62(32)}`;
  const now = ctx.clock.now();
  const row = await ctx.db.transaction().execute(async (trx) => {
    // Serialises creates per business and mode so the limit of 10 holds under concurrency.
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`webhook_endpoints:${principal.businessId}:${principal.livemode}`}, 0))`.execute(trx);
    const existing = await trx
      .selectFrom('webhook_endpoints')
      .select(['url'])
      .where('business_id', '=', principal.businessId)
      .where('livemode', '=', principal.livemode)
      .where('deleted_at', 'is', null)
      .execute();
    if (existing.some((endpoint) => endpoint.url === url)) throw duplicateUrl();
    if (existing.length >= MAX_ENDPOINTS_PER_MODE) {
      throw new ApiError('too_many', {
        rest: `This mode already has ${MAX_ENDPOINTS_PER_MODE} webhook endpoints; delete one first.`,
        tool: `This mode already has ${MAX_ENDPOINTS_PER_MODE} webhook endpoints: call delete_webhook_endpoint with the id of one (list_webhook_endpoints lists them) first.`,
      });
    }
    const inserted = await trx
      .insertInto('webhook_endpoints')
      .values({
        id: newId('we'),
        business_id: principal.businessId,
        livemode: principal.livemode,
        url,
        description: input.description ?? null,
        events: input.events,
        secret_encrypted: ctx.secrets.seal(secret),
        // People add endpoints in the dashboard (the CLI's operator for them); keys through the API.
        added_via: principal.actor.kind === 'person' || principal.actor.kind === 'operator' ? 'dashboard' : 'api',
        api_key_id: keyIdOf(principal),
        created_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
      .catch((error: unknown) => {
        if (isUniqueViolation(error, 'webhook_endpoints_url')) throw duplicateUrl();
        throw error;
      });
    await recordActivity(trx, principal, 'webhook_endpoint.created', inserted.id, { url, events: input.events }, now);
    await mailEndpointAdded(trx, ctx, inserted);
    return inserted;
  });
  return { ...toWebhookEndpointOut(row), secret };
}

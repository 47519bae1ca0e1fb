import { PAYMENT_EVENT_TYPES, PING } from '../events/types.ts';
import { rollWebhookSecret } from '../resources/webhook-endpoints/roll-secret.ts';
import { updateWebhookEndpoint } from '../resources/webhook-endpoints/update.ts';
import { listDeliveryAttempts } from '../webhooks/log/list-attempts.ts';
import { listWebhookDeliveries } from '../webhooks/log/list-deliveries.ts';
import { resendWebhookDelivery } from '../webhooks/log/resend.ts';
import { retryWebhookDelivery } from '../webhooks/log/retry.ts';
import type { ManualSendResult } from '../webhooks/log/schemas.ts';
import { sendTestWebhook, TEST_EVENT_TYPES } from '../webhooks/log/send-test.ts';
import { asOperatorOn, oneOf, positional, UsageError, type Command } from './command.ts';

// The webhook operations people have in the dashboard (spec 6.3), for the operator.

const time = (seconds: number | null) => (seconds === null ? '-' : new Date(seconds * 1000).toISOString());

function sent(result: ManualSendResult, what: string) {
  const { outcome } = result;
  const how = outcome.ok ? `delivered (${outcome.statusCode})` : `failed: ${outcome.error}`;
  return {
    json: { delivery_id: result.delivery_id, event_id: result.event_id, succeeded: outcome.ok, status_code: outcome.statusCode, error: outcome.error, duration_ms: outcome.durationMs },
    text: `${what} ${result.event_id} (delivery ${result.delivery_id}): ${how} in ${outcome.durationMs} ms.`,
  };
}

export const webhookCommands: Record<string, Command> = {
  'webhooks log': {
    usage: 'webhooks log ENDPOINT_ID [--json]   (the latest 50 deliveries)',
    description: 'the endpoint\'s latest 50 deliveries: event, status, attempts, last status or error, next retry, exact body (removed endpoints too, for 30 days)',
    options: {},
    async run(context, _flags, positionals) {
      const id = positional(positionals, 'endpoint', this.usage);
      const log = await listWebhookDeliveries.run(await asOperatorOn(context, 'webhook_endpoint', id), { id });
      const lines = log.data.map((d) => [d.id, d.event_type, d.event_id, d.status, `attempts ${d.attempts}${d.manual_attempts ? `+${d.manual_attempts}` : ''}`,
        `sent ${time(d.sent)}`, d.last_status ?? d.last_error ?? '-', d.next_retry === null ? '' : `next ${time(d.next_retry)}`].join('  '));
      const header = `${log.endpoint.id} ${log.endpoint.url}${log.endpoint.removed ? ' (removed)' : ''}`;
      return { json: log, text: [header, ...(lines.length ? lines : ['No deliveries yet.'])].join('\n') };
    },
  },
  'webhooks attempts': {
    usage: 'webhooks attempts DELIVERY_ID [--json]   (every request made for one delivery)',
    description: 'every request made for one delivery: trigger, address, time, status or error, duration, start of the response',
    options: {},
    async run(context, _flags, positionals) {
      const id = positional(positionals, 'delivery', this.usage);
      const attempts = await listDeliveryAttempts.run(await asOperatorOn(context, 'webhook_delivery', id), { id });
      const lines = attempts.map((a) => [time(a.sent), a.trigger + (a.number ? ` #${a.number}` : ''), a.url, a.succeeded ? 'ok' : 'failed',
        a.status_code ?? '-', a.error ?? '', `${a.duration_ms} ms`].join('  '));
      return { json: { data: attempts }, text: lines.length ? lines.join('\n') : 'No attempts yet.' };
    },
  },
  'webhooks retry': {
    usage: 'webhooks retry DELIVERY_ID [--json]   (send a still-retrying delivery now; its schedule stays)',
    description: 'retry now: sends a still-retrying delivery at once; its automatic retries stay as they were',
    options: {},
    async run(context, _flags, positionals) {
      const id = positional(positionals, 'delivery', this.usage);
      return sent(await retryWebhookDelivery.run(await asOperatorOn(context, 'webhook_delivery', id), { id }), 'Retried');
    },
  },
  'webhooks resend': {
    usage: 'webhooks resend DELIVERY_ID [--json]   (send a finished delivery once more, same event id)',
    description: 'resend: a finished delivery once more, same event id and body (never retried)',
    options: {},
    async run(context, _flags, positionals) {
      const id = positional(positionals, 'delivery', this.usage);
      return sent(await resendWebhookDelivery.run(await asOperatorOn(context, 'webhook_delivery', id), { id }), 'Resent');
    },
  },
  'webhooks test': {
    usage: `webhooks test ENDPOINT_ID [--event ${PING}|${PAYMENT_EVENT_TYPES.join('|')}] [--json]   (Live endpoints: ping only)`,
    description: 'send test event: a `ping`, or on a Test endpoint a sample of any payment event; at once, never retried; 5 a minute per endpoint, shared with the dashboard (`rate_limited` past them)',
    options: { event: { type: 'string' } },
    async run(context, flags, positionals) {
      const id = positional(positionals, 'endpoint', this.usage);
      const type = oneOf(flags.event ?? PING, TEST_EVENT_TYPES, 'event') ?? PING;
      return sent(await sendTestWebhook.run(await asOperatorOn(context, 'webhook_endpoint', id), { id, type }), `Sent test ${type}`);
    },
  },
  'webhooks roll-secret': {
    usage: 'webhooks roll-secret ENDPOINT_ID [--keep-previous] [--json]   (--keep-previous: the old secret also signs for 24 hours)',
    description: 'a new signing secret, shown once; with `--keep-previous` the old one also signs for 24 hours',
    options: { 'keep-previous': { type: 'boolean' } },
    async run(context, flags, positionals) {
      const id = positional(positionals, 'endpoint', this.usage);
      const rolled = await rollWebhookSecret.run(await asOperatorOn(context, 'webhook_endpoint', id), { id, keep_previous: flags['keep-previous'] === true });
      const until = rolled.previous_secret_expires_at;
      return {
        json: rolled,
        text: `New signing secret of ${rolled.id} (shown once):\n  ${rolled.secret}\n${until === null
          ? 'The previous secret signs nothing from now on.' : `The previous secret also signs until ${time(until)}.`}`,
      };
    },
  },
  'webhooks update': {
    usage: 'webhooks update ENDPOINT_ID [--url URL] [--description TEXT] [--events TYPE,TYPE] [--json]',
    description: 'edit address, description, events (the same checks as creating)',
    options: { url: { type: 'string' }, description: { type: 'string' }, events: { type: 'string' } },
    async run(context, flags, positionals) {
      const id = positional(positionals, 'endpoint', this.usage);
      if (flags.url === undefined && flags.description === undefined && flags.events === undefined) throw new UsageError('Give --url, --description or --events.');
      const updated = await updateWebhookEndpoint.run(await asOperatorOn(context, 'webhook_endpoint', id), {
        id,
        url: flags.url,
        description: flags.description,
        events: typeof flags.events === 'string' ? flags.events.split(',').map((type) => type.trim()).filter(Boolean) : undefined,
      });
      return { json: updated, text: `Updated ${updated.id}: ${updated.url}, events ${updated.events.join(', ')}${updated.description ? `, "${updated.description}"` : ''}.` };
    },
  },
};

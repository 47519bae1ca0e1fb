import type { VNode } from 'preact';
import type { ActivityAction, ActivityDetails, BusinessChangeDetails } from '../audit/actions.ts';
import type { ActivityEntry } from '../audit/list.ts';
import type { Scope } from '../auth/scopes.ts';
import { HOUR } from '../core/clock.ts';
import type { AccountStatus, Integration, KeyAccess, Role } from '../db/schema.ts';
import { PAYMENT_EVENT_TYPES } from '../events/types.ts';
import { SECRET_OVERLAP_MS } from '../resources/webhook-endpoints/roll-secret.ts';
import { html, Time } from '../ui/index.ts';
import { activityName, KEY_KIND_NAMES, named, operationName } from './wording.ts';

// What an entry of the account's activity says under its name, as a sentence: each action's
// details worded by what they mean to the person reading (never "field: value", null or true).
// Typed by each action's own details, so a new action cannot be shown without its words; an old
// row missing a field leaves that part out. Typed values (names, addresses) stay text.

/** Part of the sentence: a string, or a VNode where it holds a time or starts with a typed value. */
type Clause = string | VNode | false | null | undefined;
type Wording<A extends ActivityAction> = (details: Partial<ActivityDetails[A]>) => Clause[];

const list = (items: readonly string[]): string => new Intl.ListFormat('en-GB').format(items);
const count = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

const ACCESS: Record<KeyAccess, string> = { full: 'full access', read_only: 'read only' };
const ROLES: Record<Role, string> = { owner: 'an owner', developer: 'a developer', viewer: 'a viewer' };
const INTEGRATIONS: Record<Integration, string> = { api: 'the API', payment_links: 'payment links', checkouts: 'checkouts' };
const STATUSES: Record<AccountStatus, string> = { active: 'account set to active', suspended: 'account suspended', archived: 'account archived' };
const SCOPES: Record<Scope, string> = {
  'payments:read': 'read payments',
  'checkouts:write': 'create payment links and checkouts',
  'orders:read': 'read orders',
  'orders:write': 'update orders',
  'customers:read': 'read customers',
  'webhooks:read': 'read webhook endpoints',
  'webhooks:write': 'change webhook endpoints',
};
/** Why an agent was disconnected (agents/tokens.ts, the dashboard). */
const DISCONNECTED_WHY: Record<string, string> = {
  disconnected_in_dashboard: 'disconnected in the dashboard',
  authorization_code_reused: 'its sign-in code was used twice, so the service cut it off in case it was stolen',
  refresh_token_reused: 'a refresh token it had already used came back, so the service cut it off in case it was stolen',
  revoked_by_client: 'the agent\'s app gave up its access',
};
/** A checkout's columns, as its form names them. */
const CHECKOUT_FIELDS: Record<string, string> = {
  amount_minor: 'price', success_url: 'address after payment', button_label: 'button label', crypto: 'paying from a wallet',
  routing: 'card provider choice', collect: 'what it asks the buyer',
};
const IMAGE_TYPES: Record<string, string> = { 'image/png': 'PNG', 'image/jpeg': 'JPEG', 'image/webp': 'WebP', 'image/gif': 'GIF' };

const lower = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);
const events = (types: readonly string[]) => (types.length === PAYMENT_EVENT_TYPES.length ? 'every payment event' : list(types));

/** The wallet in full, as the confirmation page and the owners' mail show it: a shortened one is what a look-alike imitates. */
function wallet(now: string | null, before: string | null | undefined): string {
  const was = before === undefined ? '' : before === null ? ' (there was none)' : ` (it was ${before})`;
  return now === null ? `payout wallet removed${was}` : `payout wallet set to ${now}${was}`;
}

const businessChange = (d: Partial<BusinessChangeDetails>): Clause[] => [
  d.status !== undefined && STATUSES[d.status],
  d.commerce !== undefined && (d.commerce === 'paused' ? 'taking payments paused' : 'taking payments resumed'),
  d.crypto_enabled !== undefined && `stablecoin payments turned ${d.crypto_enabled ? 'on' : 'off'}`,
  (d.enable?.length ?? 0) > 0 && `${list(d.enable!.map((each) => INTEGRATIONS[each]))} on`,
  (d.disable?.length ?? 0) > 0 && `${list(d.disable!.map((each) => INTEGRATIONS[each]))} off`,
  d.brand_color !== undefined && (d.brand_color === null ? 'brand colour back to the service\'s own' : `brand colour set to ${d.brand_color}`),
  d.payout_wallet !== undefined && wallet(d.payout_wallet, d.payout_wallet_before),
  d.fee_bps !== undefined && `fee set to ${d.fee_bps / 100}%`,
];

const WORDING: { [A in ActivityAction]: Wording<A> } = {
  'agent.connected': (d) => [
    `${d.client_name ? `“${d.client_name}”` : d.client_id ? `the app ${d.client_id}` : 'the agent'}${d.access ? ` with ${d.access === 'full' ? 'full' : 'read-only'} access` : ''}`,
    d.scopes && d.scopes.length > 0 && `it may ${list(d.scopes.map((scope) => named(SCOPES, scope).toLowerCase()))}`,
  ],
  'agent.disconnected': (d) => [d.why && lower(named(DISCONNECTED_WHY, d.why))],
  'agent.policy_changed': (d) => [
    d.live_needs_approval !== undefined && (d.live_needs_approval ? 'each Live create or change needs a person\'s approval' : 'Live creates and changes within its limits need no approval'),
    d.limits && (d.limits.length === 0 ? 'no spend limits set: each payment it creates needs approval' : `limits ${list(d.limits)}`),
  ],
  'agent_approval.approved': (d) => [d.operation && operationName(d.operation)],
  'agent_approval.declined': (d) => [d.operation && operationName(d.operation)],
  'agent_approval.requested': (d) => [[d.operation && operationName(d.operation), d.reasons && d.reasons.length > 0 && `because ${list(d.reasons)}`].filter(Boolean).join(', ')],
  'agent_approval.used': (d) => [d.operation && operationName(d.operation)],
  'agent_approval.withdrawn': (d) => [d.operation && operationName(d.operation)],
  'api_key.created': (d) => [[d.kind && KEY_KIND_NAMES[d.kind], d.access && ACCESS[d.access], d.name === null ? 'no name' : d.name !== undefined && `named “${d.name}”`].filter(Boolean).join(', ')],
  'api_key.revoked': (d) => {
    const removed = d.removed_webhook_endpoints?.length ?? 0;
    return [removed > 0 && `${count(removed, 'webhook endpoint', 'webhook endpoints')} it added ${removed === 1 ? 'was' : 'were'} removed with it`];
  },
  'business.logo_removed': () => [],
  'business.logo_set': (d) => [[
    d.content_type && `${IMAGE_TYPES[d.content_type] ?? d.content_type} image`,
    d.width && d.height && `${d.width} × ${d.height} pixels`,
    d.byte_size !== undefined && `${Math.ceil(d.byte_size / 1024)} KB`,
  ].filter(Boolean).join(', ')],
  'business.payout_wallet_changed': businessChange,
  'business.settings_updated': businessChange,
  'business.updated': businessChange,
  'checkout.deleted': () => [],
  'checkout.updated': (d) => [d.changed && d.changed.length > 0 && `${list(d.changed.map((field) => named(CHECKOUT_FIELDS, field).toLowerCase()))} changed`],
  'customer.erased': (d) => [d.orders !== undefined && `their details were erased from ${list([count(d.orders, 'order', 'orders'), count(d.payments ?? 0, 'payment', 'payments'), count(d.events ?? 0, 'event', 'events')])}`],
  'customer.note_saved': () => [],
  'member.role_set': (d) => [d.email && d.role && html`<span><bdi>${d.email}</bdi> is now ${ROLES[d.role]}</span>`],
  'payment.accepted': (d) => [d.hold_reason && `why it was held: ${d.hold_reason}`],
  'payment.remainder_requested': (d) => [d.amount && `the buyer is asked for the rest, ${d.amount} ${d.currency ?? ''}`.trim()],
  'webhook_endpoint.created': (d) => [d.url && `sends ${d.events ? events(d.events) : 'payment events'} to ${d.url}`],
  'webhook_endpoint.deleted': () => [],
  'webhook_endpoint.removed_gone': (d) => [d.url && `its address was ${d.url}`],
  'webhook_endpoint.replay_requested': (d) => [d.total !== undefined && d.since !== undefined
    && html`<span>${count(d.total, 'delivery', 'deliveries')} that failed since ${Time({ at: new Date(d.since * 1000) })} ${d.total === 1 ? 'is' : 'are'} sent once more</span>`],
  'webhook_endpoint.secret_rolled': (d) => [d.keep_previous !== undefined
    && (d.keep_previous ? `the old secret still works for ${SECRET_OVERLAP_MS / HOUR} hours` : 'the old secret stopped working at once')],
  'webhook_endpoint.updated': (d) => [
    d.url && `address set to ${d.url}`,
    d.events && `now sends ${events(d.events)}`,
    d.description === null ? 'description removed' : d.description !== undefined && `description set to “${d.description}”`,
  ],
};

/** An entry's details as one sentence (its parts joined by semicolons, the first capitalised); null when it has none. */
function activityDetails(action: string, details: Record<string, unknown>): VNode | null {
  // An action no longer known (an old row) says nothing more than its name.
  const wording = Object.hasOwn(WORDING, action) ? WORDING[action as ActivityAction] as Wording<ActivityAction> : () => [];
  const clauses = wording(details as never).filter((clause): clause is string | VNode => typeof clause === 'string' ? clause !== '' : Boolean(clause));
  if (clauses.length === 0) return null;
  const [first, ...rest] = clauses;
  const opening = typeof first === 'string' ? first.charAt(0).toUpperCase() + first.slice(1) : first;
  return html`<span>${opening}${rest.map((clause) => html`; ${clause}`)}</span>`;
}

/** What an entry of the activity says: its name, its details below. */
export function ActivityWhat({ entry }: { entry: ActivityEntry }): VNode {
  const details = activityDetails(entry.action, entry.details);
  return html`<span>${activityName(entry.action)}${details && html`<br /><span class="muted">${details}</span>`}</span>`;
}

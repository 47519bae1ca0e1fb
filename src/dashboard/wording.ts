import type { VNode } from 'preact';
import type { ActivityAction } from '../audit/actions.ts';
import type { AgentApprovalOut } from '../resources/agent-connections/policy.ts';
import { COIN_NAMES } from '../core/networks-config.ts';
import type { DeliveryStatus, MailHeldBecause, MailKind, MailStatus, PaymentStatus } from '../db/schema.ts';
import { BUYER_MAIL_PER_HOUR } from '../resources/payments/mail.ts';
import type { KEY_KINDS } from '../resources/api-keys/schemas.ts';
import type { CHECKOUT_KINDS } from '../resources/checkouts/schemas.ts';
import type { PAYMENT_SOURCES } from '../resources/payments/schemas.ts';
import { StatusBadge, type StatusTone } from '../ui/index.ts';

// The names people read for the codes the service keeps (activity types, coins, kinds of object,
// statuses), in one place. Each table is typed by the code's own list, so a new code cannot be
// shown without a name; a code unknown here (an old row) is shown readably, never raw.

export const ACTIVITY_NAMES: Record<ActivityAction, string> = {
  'agent.connected': 'Agent connected',
  'agent.disconnected': 'Agent disconnected',
  'agent.policy_changed': 'Agent\'s spend policy changed',
  'agent_approval.approved': 'Agent\'s request approved',
  'agent_approval.declined': 'Agent\'s request declined',
  'agent_approval.withdrawn': 'Approval of an agent\'s request withdrawn',
  'agent_approval.requested': 'Agent asked for approval',
  'agent_approval.used': 'Agent used an approval',
  'api_key.created': 'API key created',
  'api_key.revoked': 'API key revoked',
  'business.logo_removed': 'Logo removed',
  'business.logo_set': 'Logo uploaded',
  'business.payout_wallet_changed': 'Payout wallet changed',
  'business.settings_updated': 'Settings changed',
  'business.updated': 'Account changed',
  'checkout.deleted': 'Checkout deleted',
  'checkout.updated': 'Checkout changed',
  'customer.erased': 'Customer erased',
  'customer.note_saved': 'Customer note saved',
  'member.role_set': 'Team member\'s role set',
  'payment.accepted': 'Held payment accepted',
  'payment.remainder_requested': 'Rest of an underpayment asked for',
  'webhook_endpoint.created': 'Webhook endpoint added',
  'webhook_endpoint.deleted': 'Webhook endpoint removed',
  'webhook_endpoint.removed_gone': 'Webhook endpoint removed (it answered 410 Gone)',
  'webhook_endpoint.replay_requested': 'Webhook replay started',
  'webhook_endpoint.secret_rolled': 'Webhook signing secret rolled',
  'webhook_endpoint.updated': 'Webhook endpoint changed',
};

export const SOURCE_NAMES: Record<(typeof PAYMENT_SOURCES)[number], string> = { api: 'Checkout session (API)', checkout: 'Checkout', payment_link: 'Payment link' };
export const CHECKOUT_KIND_NAMES: Record<(typeof CHECKOUT_KINDS)[number], string> = { page: 'Checkout page', pricing_table: 'Pricing table', widget: 'Widget' };
export const KEY_KIND_NAMES: Record<(typeof KEY_KINDS)[number], string> = { api: 'API key', plugin: 'Plugin key', legacy: 'Legacy key' };

/** A code no table names (an old row's): its words, capitalised ("removed_gone" → "Removed gone"). */
function readable(code: string): string {
  const words = code.replace(/[._]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A code's name in `table`, or its words when the table has none. */
export const named = <T extends string>(table: Record<T, string>, code: string): string =>
  (Object.hasOwn(table, code) ? table[code as T] : readable(code));

export const activityName = (action: string): string => named(ACTIVITY_NAMES, action);
export const coinName = (coin: string): string => named(COIN_NAMES, coin);
export const sourceName = (source: string): string => named(SOURCE_NAMES, source);
export const checkoutKindName = (kind: string): string => named(CHECKOUT_KIND_NAMES, kind);

/** The operations a connected agent asks a person to approve, as the person reads them. */
const OPERATION_NAMES: Record<string, string> = {
  create_payment_link: 'Create a payment link',
  cancel_payment_link: 'Cancel a payment link',
  create_checkout: 'Create a checkout page',
  create_checkout_session: 'Create a checkout session',
  start_checkout_session: 'Start a checkout session',
  update_order: 'Update an order',
  report_order_event: 'Report an order\'s cancellation or refund',
  simulate_payment: 'Simulate a Test payment',
};

export const operationName = (operation: string): string => named(OPERATION_NAMES, operation);

/** A coin amount as people read it: "103.680000" and "polygon_usdc" → "103.68 USDC on Polygon" (at least two decimals, no trailing zeros beyond). */
export function coinAmount(value: string, coin: string | null): string {
  const [whole, fraction = ''] = value.split('.');
  const kept = fraction.replace(/0+$/, '').padEnd(2, '0');
  return `${whole}.${kept} ${coin === null ? '' : coinName(coin)}`.trim();
}

/** A payment whose money the processor could not forward yet (a forward failed, or pending past its bound): the operator is mailed. */
export const WAITING_TO_BE_FORWARDED = 'Waiting to be forwarded: the service\'s operator has been told';

type Badge = readonly [label: string, tone: StatusTone];

export const PAYMENT_STATUS_BADGES: Record<PaymentStatus, Badge> = {
  open: ['Open', 'info'],
  pending: ['Pending', 'warning'],
  paid: ['Paid', 'success'],
  held: ['Held', 'warning'],
  failed: ['Failed', 'danger'],
  expired: ['Expired', 'neutral'],
};

export const DELIVERY_STATUS_BADGES: Record<DeliveryStatus, Badge> = {
  pending: ['Retrying', 'warning'],
  succeeded: ['Delivered', 'success'],
  failed: ['Failed', 'danger'],
  canceled: ['Canceled', 'neutral'],
};

const OBJECT_BADGES = {
  active: ['Active', 'success'],
  removed: ['Removed', 'neutral'],
  deleted: ['Deleted', 'neutral'],
  canceled: ['Canceled', 'neutral'],
} as const satisfies Record<string, Badge>;

export const APPROVAL_STATUS_BADGES: Record<AgentApprovalOut['status'], Badge> = {
  pending: ['Waiting for a person', 'warning'],
  approved: ['Approved, not used yet', 'info'],
  declined: ['Declined', 'neutral'],
  withdrawn: ['Withdrawn', 'neutral'],
  used: ['Approved and used', 'success'],
  expired: ['Expired', 'neutral'],
};

const badge = ([label, tone]: Badge, status: string): VNode => StatusBadge({ label, tone, status });

/** A payment's, an order's or a payment link's status (a link canceled before it was paid says so). */
export function PaymentBadge({ status, canceled = false }: { status: string; canceled?: boolean }): VNode {
  if (canceled && status !== 'paid' && status !== 'held') return badge(OBJECT_BADGES.canceled, 'canceled');
  return badge(Object.hasOwn(PAYMENT_STATUS_BADGES, status) ? PAYMENT_STATUS_BADGES[status as PaymentStatus] : [readable(status), 'neutral'], status);
}

/** A webhook delivery's status. */
export const DeliveryBadge = ({ status }: { status: DeliveryStatus }): VNode => badge(DELIVERY_STATUS_BADGES[status], status);

/** Whether a webhook endpoint or a checkout still works: active, or removed / deleted. */
export const ObjectBadge = ({ status }: { status: keyof typeof OBJECT_BADGES }): VNode => badge(OBJECT_BADGES[status], status);

/** Where an agent's request for approval stands. */
/** What a mail is, as people read it (the payment page's list of its mail). */
export const MAIL_KIND_WORDS: Record<MailKind, string> = {
  webhook_endpoint_added: 'Webhook endpoint added notice',
  sign_in_link: 'Sign-in link',
  payout_wallet_changed: 'Payout wallet changed notice',
  operator_alert: 'Operator alert',
  payment_receipt: 'Receipt',
  payment_held: 'Held notice',
  payment_held_staff: 'Held payment notice',
};

/** Whether a mail went, and if not, why, in a person's words. */
export function mailFate(mail: { status: MailStatus; held_because: MailHeldBecause | null }): string {
  if (mail.status === 'sent') return 'sent.';
  if (mail.status === 'queued') return 'being sent.';
  if (mail.status === 'failed') return 'could not be sent (the mail server refused it).';
  if (mail.held_because === 'test_mode') return 'Test mode: not sent. In Test mode, mail goes only to this business\'s own people.';
  if (mail.held_because === 'address_limit') return `not sent: this address got ${BUYER_MAIL_PER_HOUR} receipts or notices within the hour already.`;
  return 'not sent: this service has no mail server set up (its operator reads it in the outbox).';
}

export const ApprovalBadge = ({ status }: { status: AgentApprovalOut['status'] }): VNode => badge(APPROVAL_STATUS_BADGES[status], status);

/** Whether an agent connection still works. */
export const ConnectionBadge = ({ connected }: { connected: boolean }): VNode =>
  connected ? badge(['Connected', 'success'], 'connected') : badge(['Disconnected', 'neutral'], 'disconnected');

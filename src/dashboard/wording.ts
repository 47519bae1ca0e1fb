import type { VNode } from 'preact';
import type { ActivityAction } from '../audit/actions.ts';
import type { AgentApprovalOut } from '../resources/agent-connections/policy.ts';
import type { DeliveryStatus, MailHeldBecause, MailKind, MailStatus, PaymentStatus } from '../db/schema.ts';
import { BUYER_MAIL_PER_HOUR } from '../resources/payments/mail.ts';
import type { KEY_KINDS } from '../resources/api-keys/schemas.ts';
import type { CHECKOUT_KINDS } from '../resources/checkouts/schemas.ts';
import type { PAYMENT_SOURCES } from '../resources/payments/schemas.ts';
import { badge, CANCELED_BADGE, CHECKOUT_KIND_NAMES, checkoutKindName, coinAmount, coinName, named, operationName, PAYMENT_FACT_NAMES, PAYMENT_STATUS_BADGES, PaymentBadge, SOURCE_NAMES, sourceName, type Badge } from '../ui/index.ts';

// The names people read for the codes the service keeps (activity types, coins, kinds of object,
// statuses), in one place. Each table is typed by the code's own list, so a new code cannot be
// shown without a name; a code unknown here (an old row) is shown readably, never raw. A payment's
// words are ui/wording.ts's (the agents' payment card shows them too), re-exported here and
// checked against the codes' lists below.

export { CHECKOUT_KIND_NAMES, checkoutKindName, coinAmount, coinName, named, operationName, PAYMENT_FACT_NAMES, PAYMENT_STATUS_BADGES, PaymentBadge, SOURCE_NAMES, sourceName };
// Every payment status and source has its words (a compile-time check: the tables live in ui/).
PAYMENT_STATUS_BADGES satisfies Record<PaymentStatus, Badge>;
SOURCE_NAMES satisfies Record<(typeof PAYMENT_SOURCES)[number], string>;
CHECKOUT_KIND_NAMES satisfies Record<(typeof CHECKOUT_KINDS)[number], string>;

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

export const KEY_KIND_NAMES: Record<(typeof KEY_KINDS)[number], string> = { api: 'API key', plugin: 'Plugin key', legacy: 'Legacy key' };

export const activityName = (action: string): string => named(ACTIVITY_NAMES, action);

/** A payment whose money the processor could not forward yet (a forward failed, or pending past its bound): the operator is mailed. */
export const WAITING_TO_BE_FORWARDED = 'Waiting to be forwarded: the service\'s operator has been told';

export const DELIVERY_STATUS_BADGES: Record<DeliveryStatus, Badge> = {
  pending: ['Retrying', 'warning'],
  succeeded: ['Delivered', 'success'],
  failed: ['Failed', 'danger'],
  canceled: CANCELED_BADGE,
};

const OBJECT_BADGES = {
  active: ['Active', 'success'],
  removed: ['Removed', 'neutral'],
  deleted: ['Deleted', 'neutral'],
  canceled: CANCELED_BADGE,
} as const satisfies Record<string, Badge>;

export const APPROVAL_STATUS_BADGES: Record<AgentApprovalOut['status'], Badge> = {
  pending: ['Waiting for a person', 'warning'],
  approved: ['Approved, not used yet', 'info'],
  declined: ['Declined', 'neutral'],
  withdrawn: ['Withdrawn', 'neutral'],
  used: ['Approved and used', 'success'],
  expired: ['Expired', 'neutral'],
};

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

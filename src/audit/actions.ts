import type { AccountStatus, Integration, KeyAccess, KeyKind, Role } from '../db/schema.ts';

// Every action the account's activity records, and what each records beside who, when and on
// what. A new one is added here first: recordActivity takes only these, with their details, and
// the dashboard must then word it (dashboard/activity-wording.ts; test/dashboard/activity.test.ts).

export const ACTIVITY_ACTIONS = [
  'agent.connected',
  'agent.disconnected',
  'agent.policy_changed',
  'agent_approval.approved',
  'agent_approval.declined',
  'agent_approval.requested',
  'agent_approval.used',
  'agent_approval.withdrawn',
  'api_key.created',
  'api_key.revoked',
  'business.logo_removed',
  'business.logo_set',
  'business.payout_wallet_changed',
  'business.settings_updated',
  'business.updated',
  'checkout.deleted',
  'checkout.updated',
  'customer.erased',
  'customer.note_saved',
  'member.role_set',
  'payment.accepted',
  'payment.remainder_requested',
  'webhook_endpoint.created',
  'webhook_endpoint.deleted',
  'webhook_endpoint.removed_gone',
  'webhook_endpoint.replay_requested',
  'webhook_endpoint.secret_rolled',
  'webhook_endpoint.updated',
] as const;

export type ActivityAction = (typeof ACTIVITY_ACTIONS)[number];

/** A change of the business (settings, the operator's, the payout wallet): only what was asked, and the wallet it replaced. */
export interface BusinessChangeDetails {
  commerce?: 'active' | 'paused';
  crypto_enabled?: boolean;
  /** The dashboard sends both lists whole: what is on and what is off. */
  enable?: Integration[];
  disable?: Integration[];
  brand_color?: string | null;
  payout_wallet?: string | null;
  /** Set only when the wallet changed. */
  payout_wallet_before?: string | null;
  status?: AccountStatus;
  fee_bps?: number;
}

type Nothing = Record<string, never>;

/** The details each action records (indexed by every action, so none can be left out). */
export interface ActivityDetails {
  'agent.connected': { client_id: string; client_name: string | null; access: KeyAccess; scopes: string[] };
  /** A code: disconnected_in_dashboard, authorization_code_reused, refresh_token_reused, revoked_by_client. */
  'agent.disconnected': { why: string };
  /** Each limit already in words ("USD 50.00 per payment, 200.00 a day"). */
  'agent.policy_changed': { live_needs_approval: boolean; limits: string[] };
  'agent_approval.approved': { operation: string; connection_id: string };
  'agent_approval.declined': { operation: string; connection_id: string };
  /** The reasons are in words, as the agent was told them. */
  'agent_approval.requested': { operation: string; reasons: string[] };
  'agent_approval.used': { operation: string };
  'agent_approval.withdrawn': { operation: string; connection_id: string };
  'api_key.created': { kind: KeyKind; access: KeyAccess; name: string | null };
  /** The ids of the webhook endpoints the key had added. */
  'api_key.revoked': { removed_webhook_endpoints: string[] };
  'business.logo_removed': { sha256: string };
  'business.logo_set': { content_type: string; byte_size: number; sha256: string; width: number; height: number };
  'business.payout_wallet_changed': BusinessChangeDetails;
  'business.settings_updated': BusinessChangeDetails;
  'business.updated': BusinessChangeDetails;
  'checkout.deleted': Nothing;
  /** The columns changed (amount_minor, success_url…). */
  'checkout.updated': { changed: string[] };
  'customer.erased': { orders: number; payments: number; events: number };
  'customer.note_saved': Nothing;
  'member.role_set': { email: string; role: Role };
  /** The reason is in words; null when none was kept. */
  'payment.accepted': { hold_reason: string | null };
  'payment.remainder_requested': { remainder_id: string; amount: string; currency: string };
  'webhook_endpoint.created': { url: string; events: string[] };
  'webhook_endpoint.deleted': Nothing;
  'webhook_endpoint.removed_gone': { url: string };
  /** since: Unix seconds. */
  'webhook_endpoint.replay_requested': { since: number; total: number };
  'webhook_endpoint.secret_rolled': { keep_previous: boolean };
  /** Only what changed; a null description was removed. */
  'webhook_endpoint.updated': { url?: string; events?: string[]; description?: string | null };
}

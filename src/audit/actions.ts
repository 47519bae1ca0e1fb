// Every action the account's activity records. A new one is added here first: recordActivity
// takes only these, and the dashboard must then give it a name people read (a test checks).

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

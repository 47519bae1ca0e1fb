import { agentPage, approvalPage } from '../../src/dashboard/pages/agent.ts';
import { DEFAULT_POLICY_VALUES } from '../../src/dashboard/pages/agent-policy.ts';
import type { AgentApprovalOut, AgentConnectionDetail } from '../../src/resources/agent-connections/policy.ts';
import type { AgentConnectionOut } from '../../src/resources/agent-connections/schemas.ts';
import { roaster, seconds, signedIn, VIEWER, type Fill, type PageState } from './state-kit.ts';

// A connected agent's spend policy and the approvals its calls beyond it wait for (issue 24), with
// the coffee roaster's order desk agent: what the agent sent (its name, the arguments it asked
// for) goes through `v` (see states.ts); ids, times, amounts the service formats do not.

const at = (iso: string) => new Date(iso);

export function agentConnection(v: Fill, more: Partial<AgentConnectionOut> = {}): AgentConnectionOut {
  return {
    id: 'con_K3mW8qXp2Lr7Vn4Tc9Bz5HjD', object: 'agent_connection', client_name: v('Roastery order desk'), client_id: v('https://orderdesk.example/oauth/client.json'),
    livemode: true, access: 'full', scopes: ['payments:read', 'checkouts:write', 'orders:read', 'orders:write', 'customers:read'],
    approved_by: { person_id: 'per_8Hc2LwQ5rT9mXz3vKp7NbY1d', email: v('maya@kestrelcoffee.example') },
    created: seconds('2026-02-20T14:05:00Z'), last_used: seconds('2026-03-04T08:12:00Z'), disconnected: null, disconnected_why: null, ...more,
  };
}

export function agentApproval(v: Fill, more: Partial<AgentApprovalOut> = {}): AgentApprovalOut {
  return {
    id: 'apr_7Hk2Lm9Qx4Rt8Vn3Wc6Bz1Pd', operation: 'create_payment_link',
    arguments: { amount: v('1250.00'), currency: v('usd'), description: v('Wholesale order #1042: 40 kg Yirgacheffe'), customer_email: v('buyer@cafe-aurora.example') },
    amount: '1250.00', currency: 'USD',
    reasons: ['1250.00 USD is over this agent\'s limit of 500.00 USD per payment'],
    status: 'pending', created: at('2026-03-04T08:10:00Z'), expires: at('2026-03-05T08:10:00Z'),
    decided_by: null, decided: null, used: null, connection_id: 'con_K3mW8qXp2Lr7Vn4Tc9Bz5HjD',
    path: '/dashboard/businesses/biz_4fT9kQm2VxR7pLw3Zc8HnB1d/live/agents/approvals/apr_7Hk2Lm9Qx4Rt8Vn3Wc6Bz1Pd', ...more,
  };
}

function detail(v: Fill): AgentConnectionDetail {
  return {
    connection: agentConnection(v),
    live_needs_approval: false,
    limits: [
      { currency: 'USD', per_object: '500.00', per_day: '2000.00', created_today: '740.00' },
      { currency: 'EUR', per_object: '300.00', per_day: '1000.00', created_today: '0.00' },
    ],
    approvals: [
      agentApproval(v),
      agentApproval(v, { id: 'apr_2Vn8Rk3Xq7Lm4Tw9Pc5Bz1Hf', operation: 'create_checkout', status: 'used', reasons: ['GBP is not among the currencies this agent may use (EUR, USD)'],
        created: at('2026-03-03T16:00:00Z'), decided_by: v('tomas@kestrelcoffee.example'), decided: at('2026-03-03T16:04:00Z'), used: at('2026-03-03T16:05:00Z') }),
    ],
  };
}

const policy = (d: AgentConnectionDetail) => ({ live_needs_approval: d.live_needs_approval, limits: d.limits });

export const AGENT_STATES: readonly PageState[] = [
  signedIn({ fn: agentPage, name: 'agent-policy', main: true, shows: 'a Live agent: what it created today against each limit, its approval requests, and the form to change its policy' },
    (v, s) => agentPage({ session: s, business: roaster(v), mode: 'live', manages: true, detail: detail(v), values: policy(detail(v)) })),
  signedIn({ fn: agentPage, name: 'agent-policy-refused', shows: 'a policy refused: what the person typed kept, with why' },
    (v, s) => agentPage({ session: s, business: roaster(v), mode: 'live', manages: true, detail: detail(v),
      values: { live_needs_approval: true, limits: [{ currency: 'USD', per_object: v('900.00'), per_day: v('500.00') }] },
      error: 'The limit per day in USD must be at least its limit per payment.' })),
  signedIn({ fn: agentPage, name: 'agent-policy-viewer', shows: 'the agent as a viewer sees it: no form' },
    (v, s) => agentPage({ session: s, business: roaster(v), mode: 'live', manages: false, detail: detail(v), values: DEFAULT_POLICY_VALUES }), VIEWER),
  signedIn({ fn: approvalPage, name: 'approval-pending', main: true, shows: 'an agent asks to create a payment link over its limit: the exact arguments, Approve or Decline' },
    (v, s) => approvalPage({ session: s, business: roaster(v), mode: 'live', manages: true, approval: agentApproval(v), connection: agentConnection(v) })),
  signedIn({ fn: approvalPage, name: 'approval-declined', shows: 'a declined request: who declined it and when' },
    (v, s) => approvalPage({ session: s, business: roaster(v), mode: 'live', manages: true,
      approval: agentApproval(v, { status: 'declined', decided_by: v('tomas@kestrelcoffee.example'), decided: at('2026-03-04T08:20:00Z') }), connection: agentConnection(v) })),
  signedIn({ fn: approvalPage, name: 'approval-approved', shows: 'an approval the agent has not used yet: who approved it, and Withdraw' },
    (v, s) => approvalPage({ session: s, business: roaster(v), mode: 'live', manages: true,
      approval: agentApproval(v, { status: 'approved', decided_by: v('tomas@kestrelcoffee.example'), decided: at('2026-03-04T08:20:00Z') }), connection: agentConnection(v) })),
  signedIn({ fn: approvalPage, name: 'approval-viewer', shows: 'a pending request as a viewer sees it: no buttons' },
    (v, s) => approvalPage({ session: s, business: roaster(v), mode: 'live', manages: false, approval: agentApproval(v), connection: agentConnection(v) }), VIEWER),
];

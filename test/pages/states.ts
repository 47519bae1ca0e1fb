import { agentsPage } from '../../src/dashboard/pages/agents.ts';
import { approvePage, type ApprovalRequest } from '../../src/dashboard/pages/approve.ts';
import { messagePage } from '../../src/dashboard/pages/message.ts';
import { homePage } from '../../src/dashboard/pages/home.ts';
import { keysPage } from '../../src/dashboard/pages/keys.ts';
import { signInLinkPage } from '../../src/dashboard/pages/sign-in-link.ts';
import { signInPage } from '../../src/dashboard/pages/sign-in.ts';
import { signInMailSentPage } from '../../src/dashboard/pages/sign-in-mail-sent.ts';
import { teamPage } from '../../src/dashboard/pages/team.ts';
import { requestRefusedPage } from '../../src/oauth/pages/request-refused.ts';
import type { AgentConnectionOut } from '../../src/resources/agent-connections/schemas.ts';
import type { ApiKeyOut } from '../../src/resources/api-keys/schemas.ts';
import type { MemberOut } from '../../src/resources/team/schemas.ts';
import type { NotificationPreferencesOut } from '../../src/resources/team/notifications.ts';
import { BUSINESS_STATES } from './business-states.ts';
import { BRAND_STATES } from './brand-states.ts';
import { WEBHOOK_STATES } from './webhook-states.ts';
import { AGENT_STATES, agentApproval } from './agent-states.ts';
import { PRICING_STATES } from './pricing-states.ts';
import { HOME_STATES } from './home-states.ts';
import { PAYER_NOT_PAGES, PAYER_STATES } from './payer-states.ts';
import { DEAD_END_STATES } from './dead-end-states.ts';
import { roaster, seconds, signedIn, signedOut, VIEWER, type Fill, type PageState } from './state-kit.ts';

export { filledWith, realistic, type Fill, type PageState } from './state-kit.ts';

// Every page of the dashboard, the OAuth server and the buyers (payer-states.ts) in each state a person meets it, with the data
// of a coffee roaster. Each string someone outside controls (a merchant, a buyer, an agent client,
// a person typing into the dashboard) goes through `v`, so the every-page test can fill them all
// with one hostile value, the accessibility test and the screenshots keep them as written.

/** The signed-in person's own mail preferences: held-payment mail on (the default). */
const mailOn: NotificationPreferencesOut = { object: 'notification_preferences', held_payment_mail: true, role_receives: true };

function keys(v: Fill): ApiKeyOut[] {
  const key = (id: string, name: string | null, hint: string, more: Partial<ApiKeyOut>): ApiKeyOut => ({
    id: v(id), object: 'api_key', name: name === null ? null : v(name), hint: v(hint), livemode: false, mode: 'test', kind: 'api', access: 'full',
    scopes: ['payments:read', 'checkouts:write', 'orders:read', 'orders:write', 'customers:read', 'webhooks:read', 'webhooks:write'],
    created_by: v('per_8Hc2LwQ5rT9mXz3vKp7NbY1d'), created: seconds('2026-01-14T10:02:00Z'), last_used: null, revoked: null, ...more,
  });
  return [
    key('key_Q2mX8vLr4TnW9pKc3Zb7HfJd', 'Online shop server', 'sk_test_…8fQz', { last_used: seconds('2026-03-04T08:41:00Z') }),
    key('key_N7pL3kWq9Xc2Vb8RmT4HsY6e', 'Bookkeeping export', 'sk_test_…Lm2P', {
      access: 'read_only', scopes: ['payments:read', 'orders:read', 'customers:read'], created: seconds('2026-02-02T15:20:00Z'), last_used: seconds('2026-03-03T23:00:00Z'),
    }),
    key('key_T5vR2nXk8Lp4Wq7Mc9Bz3HjF', 'WooCommerce plugin', 'sk_test_…x7Rb', {
      kind: 'plugin', scopes: ['payments:read', 'checkouts:write', 'orders:read', 'orders:write', 'customers:read'], created: seconds('2026-02-10T09:15:00Z'), last_used: seconds('2026-03-04T07:58:00Z'),
    }),
    key('key_H8wK4mPz2Rt7Xn5Lc3Vq9BdS', 'Old till', 'sk_test_…Gh4s', { created: seconds('2025-11-03T12:00:00Z'), last_used: seconds('2026-01-30T17:45:00Z'), revoked: seconds('2026-02-01T09:30:00Z') }),
  ];
}

function connections(v: Fill): AgentConnectionOut[] {
  const connection = (id: string, clientName: string | null, clientId: string, more: Partial<AgentConnectionOut>): AgentConnectionOut => ({
    id: v(id), object: 'agent_connection', client_name: clientName === null ? null : v(clientName), client_id: v(clientId), livemode: false, access: 'full',
    scopes: ['payments:read', 'checkouts:write', 'orders:read', 'orders:write', 'customers:read'],
    approved_by: { person_id: v('per_8Hc2LwQ5rT9mXz3vKp7NbY1d'), email: v('maya@kestrelcoffee.example') },
    created: seconds('2026-02-20T14:05:00Z'), last_used: null, disconnected: null, disconnected_why: null, ...more,
  });
  return [
    connection('con_K3mW8qXp2Lr7Vn4Tc9Bz5HjD', 'Roastery order desk', 'https://orderdesk.example/oauth/client.json', { last_used: seconds('2026-03-04T08:12:00Z') }),
    connection('con_P9nL2wXk7Rq4Tm8Vc3Bz6HsF', 'Accounting assistant', 'agc_Z7mQ2xW9pL4rT8vN3kB6cH1s', {
      access: 'read_only', scopes: ['payments:read', 'orders:read', 'customers:read'], approved_by: { person_id: v('per_2Tq9Lm4Xw7Rk3Vn8Pc5Bz1Hd'), email: v('tomas@kestrelcoffee.example') },
      created: seconds('2026-02-27T11:40:00Z'), last_used: seconds('2026-03-03T18:30:00Z'),
    }),
    connection('con_W4kT8mXq3Lp9Rn2Vc7Bz5HdJ', null, 'agc_R2nW8kX5pQ9mL3tV7cB4zH6j', {
      created: seconds('2026-01-22T16:00:00Z'), last_used: seconds('2026-02-05T10:20:00Z'), disconnected: seconds('2026-02-06T09:00:00Z'), disconnected_why: v('Disconnected by maya@kestrelcoffee.example'),
    }),
  ];
}

function members(v: Fill): MemberOut[] {
  const member = (id: string, email: string, role: MemberOut['role'], since: string): MemberOut => ({
    object: 'member', person_id: v(id), email: v(email), role, manages_keys: role !== 'viewer', since: seconds(since),
  });
  return [
    member('per_8Hc2LwQ5rT9mXz3vKp7NbY1d', 'maya@kestrelcoffee.example', 'owner', '2025-10-01T09:00:00Z'),
    member('per_2Tq9Lm4Xw7Rk3Vn8Pc5Bz1Hd', 'tomas@kestrelcoffee.example', 'developer', '2025-10-08T13:30:00Z'),
    member('per_6Vn3Rk8Xq2Lm7Tw4Pc9Bz5Hf', 'accounts@kestrelcoffee.example', 'viewer', '2026-01-12T10:00:00Z'),
  ];
}

function approval(v: Fill, more: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return {
    id: v('areq_Lq7Xm2Vk9Rp4Tn8Wc3Bz6HsJ5dF1gY0a'),
    clientName: v('Roastery order desk'),
    clientId: v('agc_Z7mQ2xW9pL4rT8vN3kB6cH1s'),
    describedAt: null,
    redirectUri: v.after('https://orderdesk.example/oauth/callback?from=', 'kestrel'),
    scopes: ['payments:read', 'orders:read', 'orders:write', v('customers:read')],
    resource: v('https://pay.kestrelcoffee.example/mcp'),
    ...more,
  };
}

const businesses = (v: Fill) => [roaster(v), { id: v('biz_9Lp3Wq7Xk2Rm8Vn4Tc5Bz1HsD'), name: v('Kestrel Wholesale') }];

export const PAGE_STATES: readonly PageState[] = [
  signedIn({ fn: keysPage, name: 'keys-owner', main: true, shows: 'an owner\'s Test keys: full, read-only, plugin and revoked; the form to create one' },
    (v, s) => keysPage({ session: s, business: roaster(v), mode: 'test', manages: true, keys: keys(v) })),
  signedIn({ fn: keysPage, name: 'keys-created', main: true, shows: 'right after creating a key: its secret, shown this once' }, (v, s) => keysPage({
    session: s, business: roaster(v), mode: 'test', manages: true,
    keys: [{ ...keys(v)[0]!, id: v('key_B6nR9wLk3Xq8Tm2Vc7Pz4HsG'), name: v('Market stall tablet'), hint: v('sk_test_…u3Kd'), created: seconds('2026-03-04T09:12:00Z'), last_used: null }, ...keys(v)],
    created: { secret: v('sk_test_4qN8xLm2Rk7Tw9Vp3Bc6Hz1Yd5Fg0u3Kd'), name: v('Market stall tablet') },
  })),
  signedIn({ fn: keysPage, name: 'keys-viewer', shows: 'the keys as a viewer sees them: no Revoke, no form' },
    (v, s) => keysPage({ session: s, business: roaster(v), mode: 'test', manages: false, keys: keys(v) }), VIEWER),
  signedIn({ fn: keysPage, name: 'keys-empty', shows: 'no Live key yet (Live mode: no Test banner)' },
    (v, s) => keysPage({ session: s, business: roaster(v), mode: 'live', manages: true, keys: [] })),
  signedIn({ fn: agentsPage, name: 'agents-connected', main: true, shows: 'two connected agents and a disconnected one known only by its client_id' },
    (v, s) => agentsPage({ session: s, business: roaster(v), mode: 'test', manages: true, connections: connections(v), pending: [agentApproval(v)] })),
  signedIn({ fn: agentsPage, name: 'agents-viewer', shows: 'the agents as a viewer sees them: no Disconnect' },
    (v, s) => agentsPage({ session: s, business: roaster(v), mode: 'test', manages: false, connections: connections(v), pending: [] }), VIEWER),
  signedIn({ fn: agentsPage, name: 'agents-empty', shows: 'no agent connected in Live' },
    (v, s) => agentsPage({ session: s, business: roaster(v), mode: 'live', manages: true, connections: [], pending: [] })),
  signedIn({ fn: teamPage, name: 'team-owner', main: true, shows: 'the team as its owner sees it, with the form to add a person or change a role, and their own held-payment mail on' },
    (v, s) => teamPage({ session: s, business: roaster(v), mode: 'test', isOwner: true, members: members(v), notifications: mailOn })),
  signedIn({ fn: teamPage, name: 'team-mail-off', shows: 'the team as a developer sees it after turning their held-payment mail off' },
    (v, s) => teamPage({ session: s, business: roaster(v), mode: 'live', isOwner: false, members: members(v), notifications: { ...mailOn, held_payment_mail: false } })),
  signedIn({ fn: teamPage, name: 'team-viewer', shows: 'the team as a viewer sees it (viewers are not sent held-payment mail)' },
    (v, s) => teamPage({ session: s, business: roaster(v), mode: 'test', isOwner: false, members: members(v), notifications: { ...mailOn, role_receives: false } }), VIEWER),
  signedIn({ fn: homePage, name: 'home-businesses', main: true, shows: 'three businesses, one per role' }, (v, s) => homePage(s, [
    { ...roaster(v), role: 'owner' },
    { ...businesses(v)[1]!, role: 'developer' },
    { id: v('biz_3Rk7Xw2Lq9Vm4Tn8Pc5Bz6HdG'), name: v('Harbour Street Café'), role: 'viewer' },
  ])),
  signedIn({ fn: homePage, name: 'home-none', shows: 'a person in no business yet' }, (_v, s) => homePage(s, [])),
  signedOut({ fn: signInPage, name: 'sign-in-oidc', main: true, shows: 'sign-in with an OpenID provider configured, on the way to a page' },
    (v) => signInPage({ next: v('/dashboard/businesses/biz_4fT9kQm2VxR7pLw3Zc8HnB1d/test/keys'), oidc: { name: v('Kestrel SSO'), start: '/dashboard/sign-in/oidc' } })),
  signedOut({ fn: signInPage, name: 'sign-in-again', shows: 'signing in again on the way to confirm a payout wallet change (a recent sign-in is needed)' },
    (v) => signInPage({ next: v('/dashboard/businesses/biz_4fT9kQm2VxR7pLw3Zc8HnB1d/live/settings/payout-wallet'), oidc: { name: v('Kestrel SSO'), start: '/dashboard/sign-in/oidc' }, mail: { nonce: v('Tn8Wc3Bz6HsJ5dF1gY0aLq') }, again: true })),
  signedOut({ fn: signInPage, name: 'sign-in-link-only', shows: 'sign-in without an OpenID provider or mail: sign-in links from the operator only' }, (v) => signInPage({ next: v('/dashboard') })),
  signedOut({ fn: signInPage, name: 'sign-in-by-mail', shows: 'sign-in where the service sends mail: an address for a sign-in link' },
    (v) => signInPage({ next: v('/dashboard'), mail: { nonce: v('Tn8Wc3Bz6HsJ5dF1gY0aLq') } })),
  signedOut({ fn: signInPage, name: 'sign-in-by-mail-refused', shows: 'an address that is not one, asked again, beside the OpenID provider' },
    (v) => signInPage({ next: v('/dashboard'), oidc: { name: v('Kestrel SSO'), start: '/dashboard/sign-in/oidc' },
      mail: { nonce: v('Tn8Wc3Bz6HsJ5dF1gY0aLq'), email: v('maya.kestrelcoffee.example'), error: 'Enter your email address, like you@example.com.' } })),
  signedOut({ fn: signInMailSentPage, name: 'sign-in-mail-sent', shows: 'after asking for a link: the same words whether or not the address has an account' },
    (v) => signInMailSentPage({ email: v('maya@kestrelcoffee.example') })),
  signedOut({ fn: signInLinkPage, name: 'sign-in-link', shows: 'a sign-in link opened: one button, so mail scanners do not use it up' },
    (v) => signInLinkPage({ token: v('Vq3kX9mL2wR7tN4pC8bZ6hJ1dF5gY0sA3eU7iO2uK9c'), nonce: v('Tn8Wc3Bz6HsJ5dF1gY0aLq'), next: v('/dashboard') })),
  signedIn({ fn: approvePage, name: 'approve-businesses', main: true, shows: 'an agent (registered, https redirect) asks to connect; two businesses to choose from' },
    (v, s) => approvePage(s, approval(v), businesses(v))),
  signedIn({ fn: approvePage, name: 'approve-no-business', shows: 'the same request to a person who manages keys nowhere: Deny only' },
    (v, s) => approvePage(s, approval(v), []), VIEWER),
  signedIn({ fn: approvePage, name: 'approve-metadata-client', shows: 'a client known by its metadata document URL' }, (v, s) => approvePage(s, approval(v, {
    clientName: v('Orderdesk'), clientId: v('https://orderdesk.example/oauth/client.json'), describedAt: v('https://orderdesk.example/oauth/client.json'),
  }), businesses(v))),
  signedIn({ fn: approvePage, name: 'approve-private-use', shows: 'an app on the device (private-use redirect scheme) asking only to write, so Read only grants nothing' },
    (v, s) => approvePage(s, approval(v, { clientName: v('Kestrel POS'), redirectUri: v.after('com.kestrelcoffee.pos:/', 'oauth/callback'), scopes: [v('checkouts:write')] }), businesses(v))),
  signedIn({ fn: messagePage, name: 'message-signed-in', shows: 'what went wrong, signed in' },
    (v, s) => messagePage(v('Not allowed'), v('Creating a key needs the developer role in Kestrel Coffee Roasters.'), s)),
  signedOut({ fn: messagePage, name: 'message-signed-out', shows: 'what went wrong, signed out' },
    (v) => messagePage(v('This sign-in link is not valid'), v('It was used already or has expired. Ask for a new one.'))),
  signedOut({ fn: requestRefusedPage, name: 'request-refused', shows: 'the OAuth server refusing an agent\'s request it cannot send back' },
    (v) => requestRefusedPage(v('redirect_uri is not one of the client\'s registered redirect URIs.'))),
  ...BUSINESS_STATES,
  ...HOME_STATES,
  ...WEBHOOK_STATES,
  ...AGENT_STATES,
  ...PRICING_STATES,
  ...PAYER_STATES,
  ...BRAND_STATES,
  ...DEAD_END_STATES,
];

/** Exported functions of the page folders that are not pages: what renders them. */
export const NOT_PAGES: Record<string, string> = {
  DashboardPage: 'the frame of every dashboard page, rendered by each state above',
  ...PAYER_NOT_PAGES,
};

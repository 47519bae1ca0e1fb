import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actions } from '../src/actions.ts';
import { operatorPrincipal } from '../src/auth/operator.ts';
import { personPrincipal } from '../src/auth/people.ts';
import type { Principal } from '../src/auth/principal.ts';
import { ApiError } from '../src/core/errors.ts';
import { parseOrThrow } from '../src/core/validation.ts';
import type { Role } from '../src/db/schema.ts';
import { operations } from '../src/operations.ts';
import { ROLES, atLeast } from '../src/tenancy/roles.ts';
import type { Action } from '../src/verbs/action.ts';
import type { OperationContext } from '../src/verbs/context.ts';
import { connectAgent } from './support/agents.ts';
import { startTestApp, type TestApp } from './support/harness.ts';
import { setMember } from './support/operator.ts';
import { FIXTURE_LOGO } from './support/brand-fixture.ts';

// The shared security cases, run against every action of the registry (what people do in the
// dashboard and the operator in the CLI), as test/security.test.ts does for every API operation:
// each role, secret keys and agents, another business, the other mode. A new action cannot ship
// without a fixture here, so it cannot skip them.

let t: TestApp;
beforeAll(async () => { t = await startTestApp({ RATE_LIMITS: 'off' }); });
afterAll(async () => t?.close());

type Input = Record<string, unknown>;

/** Makes what an action acts on in the business and mode of `owner` (an operator there) and returns the action's input. */
type Fixture = (owner: OperationContext) => Promise<Input>;

/** Runs an API operation as `ctx` (fixtures make objects as a merchant's server would). */
async function api(ctx: OperationContext, name: string, input: Input): Promise<any> {
  const operation = operations.find((candidate) => candidate.name === name)!;
  const result = await operation.run(ctx, parseOrThrow(operation.input, input));
  return 'body' in (result as object) && 'status' in (result as object) ? (result as { body: unknown }).body : result;
}

const agentOf = async (owner: OperationContext) =>
  (await connectAgent(t, { id: owner.principal.businessId } as never, { mode: owner.principal.livemode ? 'live' : 'test' })).connection;
/** An agent's call waiting for a person (as an over-limit create leaves it). */
const pendingApproval = async (owner: OperationContext) => {
  const connection = await agentOf(owner);
  const now = owner.clock.now();
  const id = `apr_${randomBytes(12).toString('hex')}`;
  await owner.db.insertInto('agent_approvals').values({
    id, business_id: connection.business_id, livemode: connection.livemode, connection_id: connection.id, operation: 'create_payment_link',
    arguments: JSON.stringify({ amount: '900.00', currency: 'USD', description: 'Fixture' }), arguments_hash: randomBytes(32), reasons: ['over the limit'],
    status: 'pending', created_at: now, expires_at: new Date(now.getTime() + 3_600_000),
  }).execute();
  return id;
};
const endpoint = async (owner: OperationContext) => (await api(owner, 'create_webhook_endpoint', { url: `https://hooks.example.com/${Math.random()}` })).id as string;
const startedSession = async (owner: OperationContext) => {
  const session = await api(owner, 'create_checkout_session', { amount: '10.00', currency: 'USD', customer_email: 'buyer@shop.example' });
  await api(owner, 'start_checkout_session', { id: session.id });
  return session;
};
/** A finished delivery: a test send, which the unresolvable test address fails at once. */
const testDelivery = async (owner: OperationContext) => {
  const sent = await actionNamed('send_test_webhook').run(owner, { id: await endpoint(owner) }) as { delivery_id: string };
  return sent.delivery_id;
};
/** A payout wallet change waiting for the confirmation of every member of the business (whoever runs the action then has one). */
const walletChange = async (owner: OperationContext) => {
  const wallet = `0x${randomBytes(20).toString('hex')}`;
  const members = await owner.db.selectFrom('memberships').select('person_id').where('business_id', '=', owner.principal.businessId).execute();
  for (const { person_id } of members) {
    await owner.db.insertInto('payout_wallet_changes').values({ business_id: owner.principal.businessId, person_id, payout_wallet: wallet, requested_at: owner.clock.now() })
      .onConflict((conflict) => conflict.columns(['business_id', 'person_id']).doUpdateSet({ payout_wallet: wallet, requested_at: owner.clock.now() })).execute();
  }
  return { payout_wallet: wallet };
};
function actionNamed(name: string): Action {
  return actions.find((action) => action.name === name)!;
}

const fixtures: Record<string, Fixture> = {
  list_api_keys: async () => ({}),
  create_api_key: async () => ({ name: 'fixture' }),
  revoke_api_key: async (owner) => ({ id: ((await actionNamed('create_api_key').run(owner, {})) as { id: string }).id }),
  list_members: async () => ({}),
  set_member_role: async () => ({ email: `new-${Math.random()}@shop.example`, role: 'viewer' }),
  read_notification_preferences: async () => ({}),
  set_notification_preferences: async () => ({ held_payment_mail: false }),
  list_agent_connections: async () => ({}),
  approve_agent_request: async (owner) => {
    const now = owner.clock.now();
    const client = `agc_${Math.random().toString(36).slice(2)}`;
    await owner.db.insertInto('oauth_clients').values({
      client_id: client, kind: 'registered', client_name: 'Fixture agent', client_uri: null, logo_uri: null, redirect_uris: ['https://agent.example/cb'],
      application_type: 'web', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none',
      scope: null, software_id: null, software_version: null, created_at: now, last_used_at: now, fetched_at: null,
    }).execute();
    const request = `areq_${Math.random().toString(36).slice(2)}`;
    await owner.db.insertInto('oauth_requests').values({
      id: request, client_id: client, redirect_uri: 'https://agent.example/cb', state: null, code_challenge: 'x'.repeat(43),
      resource: `${t.config.baseUrl}/v1`, scopes: ['payments:read'], created_at: now, expires_at: new Date(now.getTime() + 600_000), decided_at: null,
    }).execute();
    return { request, access: 'full' };
  },
  disconnect_agent: async (owner) => {
    const { connection } = await connectAgent(t, { id: owner.principal.businessId } as never, { mode: owner.principal.livemode ? 'live' : 'test' });
    return { id: connection.id };
  },
  read_agent_connection: async (owner) => ({ id: (await agentOf(owner)).id }),
  update_agent_policy: async (owner) => ({ id: (await agentOf(owner)).id, live_needs_approval: true, limits: [{ currency: 'USD', per_object: '100.00', per_day: '500.00' }] }),
  list_pending_approvals: async () => ({}),
  read_agent_approval: async (owner) => ({ id: await pendingApproval(owner) }),
  decide_agent_approval: async (owner) => ({ id: await pendingApproval(owner), decision: 'approve' }),
  update_webhook_endpoint: async (owner) => ({ id: await endpoint(owner), description: 'Edited' }),
  roll_webhook_secret: async (owner) => ({ id: await endpoint(owner) }),
  list_webhook_deliveries: async (owner) => ({ id: await endpoint(owner) }),
  list_delivery_attempts: async (owner) => ({ id: await testDelivery(owner) }),
  read_webhook_delivery: async (owner) => ({ id: await testDelivery(owner) }),
  read_webhook_endpoints: async () => ({}),
  list_delivery_replays: async (owner) => ({ id: await endpoint(owner) }),
  replay_failed_deliveries: async (owner) => {
    const id = await endpoint(owner);
    const session = await startedSession(owner);
    // The unresolvable address would fail every attempt; the delivery is made failed at once.
    const failed = await owner.db.updateTable('webhook_deliveries').set({ status: 'failed', next_attempt_at: null, finished_at: owner.clock.now() })
      .where('endpoint_id', '=', id).where('event_id', 'in', (eb) => eb.selectFrom('events').select('id').where('payment_id', '=', session.id))
      .returning('created_at').executeTakeFirstOrThrow();
    return { id, since: Math.floor(failed.created_at.getTime() / 1000) };
  },
  retry_webhook_delivery: async (owner) => {
    await endpoint(owner);
    const session = await startedSession(owner);
    const delivery = await owner.db.selectFrom('webhook_deliveries as d').innerJoin('events as e', 'e.id', 'd.event_id')
      .select('d.id').where('e.payment_id', '=', session.id).executeTakeFirstOrThrow();
    return { id: delivery.id };
  },
  resend_webhook_delivery: async (owner) => ({ id: await testDelivery(owner) }),
  send_test_webhook: async (owner) => ({ id: await endpoint(owner) }),
  accept_held_payment: async (owner) => {
    const session = await startedSession(owner);
    // Held and acceptable: too little arrived (Live mode has no simulations, so the row is held directly).
    await owner.db.updateTable('payments').set({ status: 'held', hold_acceptable: true, hold_reason: 'Underpaid.' }).where('id', '=', session.id).execute();
    return { id: session.id };
  },
  ask_for_remainder: async (owner) => {
    const session = await startedSession(owner);
    // A held underpayment: 6.00 of 10.00 arrived (the row is held directly, as above).
    await owner.db.updateTable('payments').set({ status: 'held', hold_acceptable: true, hold_reason: 'Underpaid.', received_minor: 600 }).where('id', '=', session.id).execute();
    return { id: session.id };
  },
  read_payment_timeline: async (owner) => ({ id: (await startedSession(owner)).id }),
  erase_customer: async (owner) => ({ id: (await api(owner, 'create_checkout_session', { amount: '10.00', currency: 'USD', customer_email: `erase-${Math.random()}@shop.example` })).customer_id }),
  read_customer_note: async (owner) => ({ id: (await api(owner, 'create_checkout_session', { amount: '10.00', currency: 'USD', customer_email: `note-${Math.random()}@shop.example` })).customer_id }),
  set_customer_note: async (owner) => ({ id: (await api(owner, 'create_checkout_session', { amount: '10.00', currency: 'USD', customer_email: `note-${Math.random()}@shop.example` })).customer_id, note: 'Likes decaf' }),
  list_account_activity: async () => ({}),
  read_go_live_checklist: async () => ({}),
  read_business_home: async () => ({ timeZone: 'UTC' }),
  update_checkout: async (owner) => ({ id: (await api(owner, 'create_checkout', { name: 'Fixture', amount: '10.00', currency: 'USD' })).id, amount: '12.00' }),
  delete_checkout: async (owner) => ({ id: (await api(owner, 'create_checkout', { name: 'Fixture', amount: '10.00', currency: 'USD' })).id }),
  create_pricing_table: async () => ({ name: 'Fixture', currency: 'USD', plans: [{ name: 'Basic', prices: [{ amount: '10.00', unit: 'month' }] }] }),
  create_widget: async () => ({ name: 'Fixture', amount: '10.00', currency: 'USD' }),
  update_business_settings: async () => ({ crypto_enabled: true }),
  request_payout_wallet_change: async () => ({ payout_wallet: `0x${randomBytes(20).toString('hex')}` }),
  read_payout_wallet_change: async (owner) => { await walletChange(owner); return {}; },
  confirm_payout_wallet_change: walletChange,
  update_business: async () => ({ fee_bps: 100, crypto_enabled: false }),
  read_business_brand: async () => ({}),
  set_business_logo: async () => ({ logo: FIXTURE_LOGO }),
  remove_business_logo: async () => ({}),
};

/** Actions that take one object by id: another business's, or the other mode's, is not_found. */
const BY_ID = new Set(['revoke_api_key', 'disconnect_agent', 'read_agent_connection', 'update_agent_policy', 'read_agent_approval', 'update_webhook_endpoint', 'roll_webhook_secret', 'list_webhook_deliveries',
  'list_delivery_attempts', 'read_webhook_delivery', 'list_delivery_replays', 'replay_failed_deliveries', 'retry_webhook_delivery', 'resend_webhook_delivery', 'send_test_webhook', 'accept_held_payment', 'ask_for_remainder', 'read_payment_timeline', 'erase_customer', 'read_customer_note', 'set_customer_note', 'update_checkout', 'delete_checkout']);
/** Lists, and how to find the fixture's object in one: its id in the answer. */
const LISTS: Record<string, { make(owner: OperationContext): Promise<string>; ids(answer: unknown): string[] }> = {
  list_api_keys: { make: async (owner) => ((await actionNamed('create_api_key').run(owner, {})) as { id: string }).id, ids: (answer) => (answer as Array<{ id: string }>).map((key) => key.id) },
  list_agent_connections: {
    make: async (owner) => (await connectAgent(t, { id: owner.principal.businessId } as never, { mode: owner.principal.livemode ? 'live' : 'test' })).connection.id,
    ids: (answer) => (answer as Array<{ id: string }>).map((connection) => connection.id),
  },
  read_webhook_endpoints: {
    make: endpoint,
    ids: (answer) => {
      const { endpoints, removed } = answer as { endpoints: Array<{ id: string }>; removed: Array<{ id: string }> };
      return [...endpoints, ...removed].map((each) => each.id);
    },
  },
  list_pending_approvals: { make: pendingApproval, ids: (answer) => (answer as Array<{ id: string }>).map((approval) => approval.id) },
  list_members: {
    make: async (owner) => ((await actionNamed('set_member_role').run(owner, { email: `member-${Math.random()}@shop.example`, role: 'viewer' })) as { person_id: string }).person_id,
    ids: (answer) => (answer as Array<{ person_id: string }>).map((member) => member.person_id),
  },
};

interface Business {
  id: string;
  people: Record<Role, { personId: string; email: string }>;
}

/** A business with one person of each role. */
async function business(): Promise<Business> {
  const biz = await t.business();
  const people = {} as Business['people'];
  for (const role of ROLES) {
    const email = `${role}-${biz.id.toLowerCase()}@shop.example`;
    await setMember(t.context, { businessId: biz.id, email, role });
    people[role] = { personId: (await t.db.selectFrom('people').select('id').where('email', '=', email).executeTakeFirstOrThrow()).id, email };
  }
  return { id: biz.id, people };
}

const as = (principal: Principal): OperationContext => ({ ...t.context, principal });
// Each person signed in just now (what a recent sign-in allows is theirs to do).
const person = async (biz: Business, role: Role, livemode = false) => as(await personPrincipal(t.db, { ...biz.people[role], signedInAt: t.clock.now() }, biz.id, livemode));
const operator = async (biz: Business, livemode = false) => as(await operatorPrincipal(t.db, biz.id, livemode));

async function refused(run: Promise<unknown>, code: string): Promise<void> {
  const error = await run.then(() => undefined, (caught: unknown) => caught);
  expect(error, `expected ${code}`).toBeInstanceOf(ApiError);
  expect((error as ApiError).code).toBe(code);
}

it('every action has a security fixture', () => {
  expect(actions.map((action) => action.name).filter((name) => !(name in fixtures))).toEqual([]);
});

it('action names are unique and never an API operation\'s', () => {
  const names = [...actions.map((action) => action.name), ...operations.map((operation) => operation.name)];
  expect(new Set(names).size).toBe(names.length);
});

describe.each(actions.map((action) => [action.name, action] as const))('%s', (_name, action) => {
  const fixture = fixtures[action.name]!;
  let mine: Business;
  beforeAll(async () => { mine = await business(); });

  it('runs for the operator, and for each role from the least it needs up; refuses the roles below with 403 insufficient_role', async () => {
    const byOperator = action.run(await operator(mine), await fixture(await operator(mine)));
    if (action.peopleOnly) await refused(byOperator, 'insufficient_role');
    else expect(await byOperator).toBeDefined();
    for (const role of ROLES) {
      const input = await fixture(await operator(mine));
      const run = action.run(await person(mine, role), input);
      if (action.role !== 'operator' && atLeast(role, action.role)) expect(await run, role).toBeDefined();
      else await refused(run, 'insufficient_role');
    }
  });

  it('refuses secret keys and agents with 403 insufficient_role', async () => {
    const input = await fixture(await operator(mine));
    const owner = await operator(mine);
    const { connection } = await connectAgent(t, { id: mine.id } as never);
    await refused(action.run(as({ ...owner.principal, actor: { kind: 'secret_key', keyId: 'key_x' } }), input), 'insufficient_role');
    await refused(action.run(as({ ...owner.principal, actor: { kind: 'agent', connectionId: connection.id } }), input), 'insufficient_role');
  });

  it.each(['suspended', 'archived'] as const)('on a %s business: refused with 403 merchant_read_only if it changes the account, else runs', async (status) => {
    const frozen = await business();
    // The fixture's object, made while the account was active, in the business that is then frozen.
    const frozenInput = await fixture(await operator(frozen));
    await t.context.db.updateTable('businesses').set({ status }).where('id', '=', frozen.id).execute();
    try {
      const caller = action.role === 'operator' ? await operator(frozen) : await person(frozen, 'owner');
      const run = action.run(caller, frozenInput);
      if (action.effect === 'changes' && action.role !== 'operator') {
        await refused(run, 'merchant_read_only');
        if (!action.peopleOnly) await refused(action.run(await operator(frozen), frozenInput), 'merchant_read_only');
      } else {
        expect(await run).toBeDefined();
      }
    } finally {
      await t.context.db.updateTable('businesses').set({ status: 'active' }).where('id', '=', frozen.id).execute();
    }
  });

  if (BY_ID.has(action.name)) {
    it("answers 404 not_found for another business's object, to its people and to the operator acting there", async () => {
      const input = await fixture(await operator(mine));
      const theirs = await business();
      await refused(action.run(await person(theirs, 'owner'), input), 'not_found');
      await refused(action.run(await operator(theirs), input), 'not_found');
    });

    if (action.modeScoped) {
      it("answers 404 not_found for the other mode's object", async () => {
        const input = await fixture(await operator(mine));
        await refused(action.run(await person(mine, 'owner', true), input), 'not_found');
        await refused(action.run(await operator(mine, true), input), 'not_found');
      });
    }
  }

  const list = LISTS[action.name];
  if (list) {
    it("lists only the caller's business (and mode): non-empty, with its own object and none of the others'", async () => {
      const theirs = await business();
      const own = await list.make(await operator(mine));
      const others = [await list.make(await operator(theirs))];
      if (action.modeScoped) others.push(await list.make(await operator(mine, true)));
      const ids = list.ids(await action.run(await person(mine, 'viewer'), {}));
      expect(ids.length).toBeGreaterThan(0);
      expect(ids).toContain(own);
      expect(ids.filter((id) => others.includes(id))).toEqual([]);
    });
  }
});

it('a person who is not a member of a business cannot act in it: not_found, before any action runs', async () => {
  const mine = await business();
  const stranger = await business();
  await refused(personPrincipal(t.db, stranger.people.owner, mine.id, false), 'not_found');
});

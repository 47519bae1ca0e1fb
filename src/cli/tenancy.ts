import type { Integration } from '../db/schema.ts';
import { createApiKey } from '../resources/api-keys/create.ts';
import { updateBusiness } from '../resources/businesses/update-account.ts';
import { listMembers } from '../resources/team/list.ts';
import { setMemberRole } from '../resources/team/set-role.ts';
import { createBusiness, INTEGRATIONS, listBusinesses } from '../tenancy/businesses.ts';
import { ROLES } from '../tenancy/roles.ts';
import { asOperator, oneOf, required, UsageError, type Command } from './command.ts';

function integrations(value: unknown, name: string): Integration[] | undefined {
  if (value === undefined) return undefined;
  const list = String(value).split(',').map((item) => item.trim()).filter(Boolean);
  for (const item of list) oneOf(item, INTEGRATIONS, name);
  return list as Integration[];
}

export const tenancyCommands: Record<string, Command> = {
  'business create': {
    usage: 'business create --name NAME --owner EMAIL [--json]',
    description: 'a business whose owner is that person → `{ "id": … }`',
    options: { name: { type: 'string' }, owner: { type: 'string' } },
    async run(context, flags) {
      const business = await createBusiness(context.db, context.clock, { name: required(flags, 'name'), ownerEmail: required(flags, 'owner') });
      return { json: { id: business.id, name: business.name }, text: `Created business ${business.id} (${business.name}).` };
    },
  },
  'business list': {
    usage: 'business list [--json]   (every business: status, commerce and owners)',
    description: 'every business, oldest first: id, name, status, commerce and its owners\' emails → `{ "data": [{ "id", "name", "status", "commerce", "owners" }] }`',
    options: {},
    async run(context) {
      const data = await listBusinesses(context.db);
      const lines = data.map((b) => [b.id, b.name, b.status, `commerce ${b.commerce}`, b.owners.join(', ') || 'no owner'].join('  '));
      return { json: { data }, text: lines.join('\n') || 'No businesses yet: business create --name NAME --owner EMAIL.' };
    },
  },
  'business update': {
    usage: 'business update ID [--status active|suspended|archived] [--commerce active|paused] [--payout-wallet ADDRESS|none] ' +
      '[--crypto on|off] [--fee-bps N] [--disable api,payment_links,checkouts] [--enable …] [--json]',
    description: 'the account\'s settings (commerce, payout wallet, crypto, integrations: what its owners may also change) and terms (status and fee: the operator\'s alone). A new payout wallet applies at once (no confirmation: the operator is not a session to steal), must pass its EIP-55 checksum when in mixed case, and is mailed to every owner naming the operator',
    options: {
      status: { type: 'string' }, commerce: { type: 'string' }, 'payout-wallet': { type: 'string' }, crypto: { type: 'string' },
      'fee-bps': { type: 'string' }, disable: { type: 'string' }, enable: { type: 'string' },
    },
    async run(context, flags, [id]) {
      if (!id) throw new UsageError('Name the business: business update ID …');
      const wallet = flags['payout-wallet'];
      const crypto = oneOf(flags.crypto, ['on', 'off'], 'crypto');
      const business = await updateBusiness.run(await asOperator(context, id), {
        commerce: oneOf(flags.commerce, ['active', 'paused'], 'commerce'),
        payout_wallet: wallet === undefined ? undefined : wallet === 'none' ? null : wallet,
        crypto_enabled: crypto === undefined ? undefined : crypto === 'on',
        disable: integrations(flags.disable, 'disable'),
        enable: integrations(flags.enable, 'enable'),
        status: oneOf(flags.status, ['active', 'suspended', 'archived'], 'status'),
        fee_bps: flags['fee-bps'] === undefined ? undefined : Number(flags['fee-bps']),
      });
      return { json: business, text: `Updated business ${business.id}.` };
    },
  },
  'members set': {
    usage: 'members set --business ID --email EMAIL [--role viewer|developer|owner] [--json]   (someone new joins as a viewer unless --role says otherwise)',
    description: 'adds a person or gives them a role (without `--role`, someone new joins as a viewer and a member keeps their role; owners and developers manage keys; a business keeps at least one owner)',
    options: { business: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' } },
    async run(context, flags) {
      const role = oneOf(flags.role, ROLES, 'role');
      const business = required(flags, 'business');
      const member = await setMemberRole.run(await asOperator(context, business), { email: required(flags, 'email'), role });
      return { json: { business, ...member }, text: `${member.email} is now ${member.role} of ${business}.` };
    },
  },
  'members list': {
    usage: 'members list --business ID [--json]',
    description: 'people and roles',
    options: { business: { type: 'string' } },
    async run(context, flags) {
      const members = await listMembers.run(await asOperator(context, required(flags, 'business')), {});
      return { json: { data: members }, text: members.map((m) => `${m.email}  ${m.role}`).join('\n') || 'No members.' };
    },
  },
  demo: {
    usage: 'demo [--json]',
    description: 'a demo business with a Test key, a `curl` line to try, and its owner\'s email with the `login-link` command that signs them in → `{ "business", "owner", "sign_in", "key", "secret", "curl" }`',
    options: {},
    async run(context) {
      const owner = 'owner@demo.example';
      const business = await createBusiness(context.db, context.clock, { name: 'Demo Store', ownerEmail: owner });
      const key = await createApiKey.run(await asOperator(context, business.id, false), { name: 'demo' });
      const base = context.config.baseUrl;
      const curl = `curl -s ${base}/v1/payment_links -H "Authorization: Bearer ${key.secret}" ` +
        `-H "Content-Type: application/json" -d '{"amount":"25.00","currency":"USD","description":"Coffee beans"}'`;
      const signIn = `npm run --silent cli -- login-link --email ${owner}`;
      return {
        json: { business: business.id, owner, sign_in: signIn, key: key.id, secret: key.secret, curl },
        text: `Demo business ${business.id}, owned by ${owner}, with Test key ${key.id}. The secret is shown only now.\n\nTry:\n\n  ${curl}\n\n` +
          `Sign in to the dashboard as ${owner} with the link this prints:\n\n  ${signIn}\n`,
      };
    },
  },
};

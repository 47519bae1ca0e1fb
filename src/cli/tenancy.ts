import { createSecretKey } from '../resources/api-keys/admin.ts';
import type { BusinessRow, Integration } from '../db/schema.ts';
import { canManageKeys, createBusiness, INTEGRATIONS, listMembers, ROLES, setMember, updateBusiness, type BusinessChanges } from '../tenancy/businesses.ts';
import { oneOf, required, UsageError, type Command } from './command.ts';

function integrations(value: unknown, name: string): Integration[] | undefined {
  if (value === undefined) return undefined;
  const list = String(value).split(',').map((item) => item.trim()).filter(Boolean);
  for (const item of list) oneOf(item, INTEGRATIONS, name);
  return list as Integration[];
}

function businessJson(business: BusinessRow) {
  return {
    id: business.id,
    name: business.name,
    status: business.status,
    commerce: business.commerce,
    disabled_integrations: business.disabled_integrations,
    payout_wallet: business.payout_wallet,
    crypto_enabled: business.crypto_enabled,
    fee_bps: business.fee_bps,
  };
}

export const tenancyCommands: Record<string, Command> = {
  'business create': {
    usage: 'business create --name NAME --owner EMAIL [--json]',
    options: { name: { type: 'string' }, owner: { type: 'string' } },
    async run(context, flags) {
      const business = await createBusiness(context.db, context.clock, { name: required(flags, 'name'), ownerEmail: required(flags, 'owner') });
      return { json: businessJson(business), text: `Created business ${business.id} (${business.name}).` };
    },
  },
  'business update': {
    usage: 'business update ID [--status active|suspended|archived] [--commerce active|paused] [--payout-wallet ADDRESS|none] ' +
      '[--crypto on|off] [--fee-bps N] [--disable api,payment_links,checkouts] [--enable …] [--json]',
    options: {
      status: { type: 'string' }, commerce: { type: 'string' }, 'payout-wallet': { type: 'string' }, crypto: { type: 'string' },
      'fee-bps': { type: 'string' }, disable: { type: 'string' }, enable: { type: 'string' },
    },
    async run(context, flags, [id]) {
      if (!id) throw new UsageError('Name the business: business update ID …');
      const wallet = flags['payout-wallet'];
      const crypto = oneOf(flags.crypto, ['on', 'off'], 'crypto');
      const changes: BusinessChanges = {
        status: oneOf(flags.status, ['active', 'suspended', 'archived'], 'status'),
        commerce: oneOf(flags.commerce, ['active', 'paused'], 'commerce'),
        payoutWallet: wallet === undefined ? undefined : wallet === 'none' ? null : String(wallet),
        cryptoEnabled: crypto === undefined ? undefined : crypto === 'on',
        feeBps: flags['fee-bps'] === undefined ? undefined : Number(flags['fee-bps']),
        disable: integrations(flags.disable, 'disable'),
        enable: integrations(flags.enable, 'enable'),
      };
      const business = await updateBusiness(context.db, context.clock, id, changes);
      return { json: businessJson(business), text: `Updated business ${business.id}.` };
    },
  },
  'members set': {
    usage: 'members set --business ID --email EMAIL --role owner|developer|viewer [--json]',
    options: { business: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' } },
    async run(context, flags) {
      const role = oneOf(required(flags, 'role'), ROLES, 'role') ?? 'viewer';
      const { personId } = await setMember(context.db, context.clock, { businessId: required(flags, 'business'), email: required(flags, 'email'), role });
      return {
        json: { business: flags.business, person: personId, email: String(flags.email).toLowerCase(), role, manages_keys: canManageKeys(role) },
        text: `${String(flags.email).toLowerCase()} is now ${role} of ${String(flags.business)}.`,
      };
    },
  },
  'members list': {
    usage: 'members list --business ID [--json]',
    options: { business: { type: 'string' } },
    async run(context, flags) {
      const members = (await listMembers(context.db, required(flags, 'business')))
        .map((m) => ({ person: m.id, email: m.email, role: m.role, manages_keys: canManageKeys(m.role) }));
      return { json: { data: members }, text: members.map((m) => `${m.email}  ${m.role}`).join('\n') || 'No members.' };
    },
  },
  demo: {
    usage: 'demo [--json]',
    options: {},
    async run(context) {
      const business = await createBusiness(context.db, context.clock, { name: 'Demo Store', ownerEmail: 'owner@demo.example' });
      const { key, secret } = await createSecretKey(context.db, context.clock, { businessId: business.id, livemode: false, name: 'demo' });
      const base = context.config.baseUrl;
      const curl = `curl -s ${base}/v1/payment_links -H "Authorization: Bearer ${secret}" ` +
        `-H "Content-Type: application/json" -d '{"amount":"25.00","currency":"USD","description":"Coffee beans"}'`;
      return {
        json: { business: business.id, key: key.id, secret, curl },
        text: `Demo business ${business.id} with Test key ${key.id}. The secret is shown only now.\n\nTry:\n\n  ${curl}\n`,
      };
    },
  },
};

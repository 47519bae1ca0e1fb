import { parseArgs } from 'node:util';
import { loadConfig } from './config.ts';
import { openRuntime, type Runtime } from './runtime.ts';
import { canManageKeys, createBusiness, INTEGRATIONS, listMembers, ROLES, setMember, TenancyError, updateBusiness, type BusinessChanges } from './tenancy/businesses.ts';
import { createSecretKey, KeyAdminError, listSecretKeys, revokeSecretKey } from './auth/key-admin.ts';
import { scopesForKey } from './auth/scopes.ts';
import type { ApiKeyRow, BusinessRow, Integration } from './db/schema.ts';

// Operator commands. With --json every command prints exactly one JSON object on stdout.
// The CLI uses the server's configuration: it connects to the running embedded database, or
// starts it for the length of the command.

class UsageError extends Error {}

type Flags = Record<string, string | boolean | undefined>;
interface Command {
  usage: string;
  options: Record<string, { type: 'string' | 'boolean' }>;
  run(runtime: Runtime, flags: Flags, positionals: string[]): Promise<{ json: object; text: string }>;
}

function required(flags: Flags, name: string): string {
  const value = flags[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required.`);
  return value;
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], name: string): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`--${name} must be one of ${allowed.join(', ')}.`);
  }
  return value as T;
}

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

function keyJson(key: ApiKeyRow) {
  return {
    id: key.id,
    business: key.business_id,
    mode: key.livemode ? 'live' : 'test',
    kind: key.kind,
    access: key.access,
    scopes: scopesForKey(key.kind, key.access),
    hint: key.secret_hint,
    created: key.created_at.toISOString(),
    last_used: key.last_used_at?.toISOString() ?? null,
    revoked: key.revoked_at?.toISOString() ?? null,
  };
}

const commands: Record<string, Command> = {
  'business create': {
    usage: 'business create --name NAME --owner EMAIL [--json]',
    options: { name: { type: 'string' }, owner: { type: 'string' } },
    async run({ context }, flags) {
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
    async run({ context }, flags, [id]) {
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
    async run({ context }, flags) {
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
    async run({ context }, flags) {
      const members = (await listMembers(context.db, required(flags, 'business')))
        .map((m) => ({ person: m.id, email: m.email, role: m.role, manages_keys: canManageKeys(m.role) }));
      return { json: { data: members }, text: members.map((m) => `${m.email}  ${m.role}`).join('\n') || 'No members.' };
    },
  },
  'keys create': {
    usage: 'keys create --business ID --mode test|live [--access full|read_only] [--kind api|plugin|legacy] [--name NAME] [--json]',
    options: { business: { type: 'string' }, mode: { type: 'string' }, access: { type: 'string' }, kind: { type: 'string' }, name: { type: 'string' } },
    async run({ context }, flags) {
      const mode = oneOf(required(flags, 'mode'), ['test', 'live'], 'mode');
      const { key, secret } = await createSecretKey(context.db, context.clock, {
        businessId: required(flags, 'business'),
        livemode: mode === 'live',
        access: oneOf(flags.access, ['full', 'read_only'], 'access'),
        kind: oneOf(flags.kind, ['api', 'plugin', 'legacy'], 'kind'),
        name: typeof flags.name === 'string' ? flags.name : null,
      });
      return {
        json: { ...keyJson(key), secret },
        text: `Created ${mode} key ${key.id}. Its secret is shown only now:\n\n  ${secret}\n`,
      };
    },
  },
  'keys revoke': {
    usage: 'keys revoke KEY_ID [--json]',
    options: {},
    async run({ context }, _flags, [id]) {
      if (!id) throw new UsageError('Name the key: keys revoke KEY_ID');
      const { key, removedEndpoints } = await revokeSecretKey(context.db, context.clock, id);
      return {
        json: { ...keyJson(key), removed_webhook_endpoints: removedEndpoints },
        text: `Revoked ${key.id}.${removedEndpoints.length ? ` Removed the webhook endpoints it added: ${removedEndpoints.join(', ')}.` : ''}`,
      };
    },
  },
  'keys list': {
    usage: 'keys list --business ID [--json]',
    options: { business: { type: 'string' } },
    async run({ context }, flags) {
      const keys = (await listSecretKeys(context.db, required(flags, 'business'))).map(keyJson);
      return {
        json: { data: keys },
        text: keys.map((k) => `${k.id}  ${k.mode}  ${k.kind}/${k.access}  ${k.hint}${k.revoked ? '  revoked' : ''}`).join('\n') || 'No keys.',
      };
    },
  },
  demo: {
    usage: 'demo [--json]',
    options: {},
    async run({ context }) {
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
  migrate: {
    usage: 'migrate [--json]',
    options: {},
    async run() {
      return { json: { migrated: true }, text: 'The database schema is up to date.' };
    },
  },
};

function help(): string {
  return ['Usage: npm run --silent cli -- COMMAND [options]', '', ...Object.values(commands).map((c) => `  ${c.usage}`)].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const name = [argv.slice(0, 2).join(' '), argv[0] ?? ''].find((candidate) => candidate in commands);
  if (!name) {
    console.error(help());
    return argv.length === 0 || argv[0] === 'help' || argv[0] === '--help' ? 0 : 2;
  }
  const command = commands[name] as Command;
  const json = argv.includes('--json');
  let parsed;
  try {
    parsed = parseArgs({
      args: argv.slice(name.split(' ').length),
      options: { ...command.options, json: { type: 'boolean' } },
      allowPositionals: true,
    });
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\nUsage: ${command.usage}`);
    return 2;
  }
  const runtime = await openRuntime(loadConfig());
  try {
    const result = await command.run(runtime, parsed.values, parsed.positionals);
    console.log(json ? JSON.stringify(result.json) : result.text);
    return 0;
  } catch (error) {
    if (error instanceof UsageError || error instanceof TenancyError || error instanceof KeyAdminError) {
      if (json) console.log(JSON.stringify({ error: { message: error.message } }));
      console.error(error instanceof UsageError ? `${error.message}\nUsage: ${command.usage}` : error.message);
      return error instanceof UsageError ? 2 : 1;
    }
    throw error;
  } finally {
    await runtime.close();
  }
}

process.exitCode = await main(process.argv.slice(2));

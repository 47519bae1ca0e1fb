import { z } from 'zod';
import { API_SCOPES, WEBHOOK_SCOPES } from '../../auth/scopes.ts';
import { defineOperation } from '../../verbs/operation.ts';
import type { OperationContext } from '../../verbs/context.ts';

// What the credential in use may do: its kind, mode and scopes. Every credential holds
// payments:read, so every credential can ask. The stdio MCP server uses it to show only the
// tools the credential allows; an agent can use it to know its limits before trying.

const CredentialInput = z.object({});

export const CredentialOut = z.object({
  object: z.literal('credential').describe('Always `credential`.'),
  kind: z.enum(['secret_key', 'agent', 'person', 'operator', 'buyer']).describe('secret_key or agent over the API; the others only inside the service.'),
  livemode: z.boolean().describe('false = Test, true = Live: everything the credential touches is in this mode.'),
  mode: z.enum(['test', 'live']).describe('`test` or `live`, the same fact as livemode.'),
  business: z.object({
    id: z.string().describe('The business\'s id.'),
    name: z.string().describe('The business\'s name.'),
  }).describe('The account the credential acts for.'),
  scopes: z.array(z.enum([...API_SCOPES, ...WEBHOOK_SCOPES])).describe('The scopes it holds: which operations it may call.'),
}).describe('What the credential in use may do.');

async function describeCredential(ctx: OperationContext): Promise<z.input<typeof CredentialOut>> {
  const { principal } = ctx;
  return {
    object: 'credential',
    kind: principal.actor.kind,
    livemode: principal.livemode,
    mode: principal.livemode ? 'live' : 'test',
    business: { id: principal.business.id, name: principal.business.name },
    scopes: [...API_SCOPES, ...WEBHOOK_SCOPES].filter((scope) => principal.scopes.has(scope)),
  };
}

export const credentialOperations = [
  defineOperation({
    name: 'get_credential',
    title: 'Get credential',
    description: 'Describe the credential in use: whether it is a secret key or a connected agent, its mode (Test or Live; everything it touches is in that mode), its business, and its scopes (which operations it may call).',
    useWhen: 'starting out: it tells your mode and the operations you may call.',
    tag: 'Credential',
    scope: 'payments:read',
    input: CredentialInput,
    output: CredentialOut,
    http: { method: 'GET', path: '/credential', status: 200 },
    run: (ctx) => describeCredential(ctx),
  }),
];

import { z } from 'zod';
import { scopesForKey } from '../../auth/scopes.ts';
import { unixSeconds, unixSecondsOrNull } from '../../core/clock.ts';
import { characters, coded } from '../../core/validation.ts';
import type { ApiKeyRow } from '../../db/schema.ts';
import { idInput } from '../shared/ids.ts';

// Secret keys as people see them: never the secret, only its hint (spec 5.2: shown once, at creation).

export const KEY_KINDS = ['api', 'plugin', 'legacy'] as const;
export const KEY_ACCESS = ['full', 'read_only'] as const;

export const CreateApiKeyInput = z.object({
  access: z.enum(KEY_ACCESS, coded('invalid_access', 'access must be full or read_only.')).default('full'),
  kind: z.enum(KEY_KINDS, coded('invalid_access', 'kind must be api, plugin or legacy.')).default('api'),
  name: z.string(coded('invalid_request', 'name must be text.')).trim()
    .refine((text) => characters(text) <= 80, coded('too_long', 'name must be at most 80 characters.'))
    .nullish().transform((text) => text || null),
}).refine((input) => input.kind === 'api' || input.access === 'full',
  coded('invalid_access', 'E-commerce plugin keys and keys from before access levels always have full access.'));
export type CreateApiKeyInput = z.output<typeof CreateApiKeyInput>;

export const ApiKeyIdInput = idInput('key');

export interface ApiKeyOut {
  id: string;
  object: 'api_key';
  name: string | null;
  /** The start and end of the secret, to recognise it. */
  hint: string;
  livemode: boolean;
  mode: 'test' | 'live';
  kind: ApiKeyRow['kind'];
  access: ApiKeyRow['access'];
  scopes: string[];
  created_by: string | null;
  created: number;
  last_used: number | null;
  revoked: number | null;
}

export function toApiKeyOut(row: ApiKeyRow): ApiKeyOut {
  return {
    id: row.id,
    object: 'api_key',
    name: row.name,
    hint: row.secret_hint,
    livemode: row.livemode,
    mode: row.livemode ? 'live' : 'test',
    kind: row.kind,
    access: row.access,
    scopes: [...scopesForKey(row.kind, row.access)],
    created_by: row.created_by,
    created: unixSeconds(row.created_at),
    last_used: unixSecondsOrNull(row.last_used_at),
    revoked: unixSecondsOrNull(row.revoked_at),
  };
}

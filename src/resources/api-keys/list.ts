import { z } from 'zod';
import { defineAction } from '../../verbs/action.ts';
import { listApiKeyRows } from './queries.ts';
import { toApiKeyOut } from './schemas.ts';

/** The secret keys of the caller's business and mode, revoked ones included, newest first. */
export const listApiKeys = defineAction({
  name: 'list_api_keys',
  title: 'List secret keys',
  role: 'viewer',
  modeScoped: true,
  effect: 'reads',
  input: z.object({}),
  run: async (ctx) => (await listApiKeyRows(ctx.db, ctx.principal)).map(toApiKeyOut),
});

import { createApiKey } from './create.ts';
import { listApiKeys } from './list.ts';
import { revokeApiKey } from './revoke.ts';

// Secret keys are made and revoked by people who manage keys (spec 5.2), in one mode at a time.
export const apiKeyActions = [listApiKeys, createApiKey, revokeApiKey];

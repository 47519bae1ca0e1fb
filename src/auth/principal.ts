import type { BusinessRow } from '../db/schema.ts';
import type { Scope } from './scopes.ts';

// Who is calling: built once per request from the credential, and the only thing verbs
// consult for tenant, mode and permission.
export type BusinessState = Pick<BusinessRow,
  'id' | 'name' | 'status' | 'commerce' | 'disabled_integrations' | 'payout_wallet' | 'crypto_enabled' | 'fee_bps'>;

export interface Principal {
  businessId: string;
  livemode: boolean;
  scopes: ReadonlySet<Scope>;
  kind: 'secret_key' | 'agent';
  keyId: string | null;
  connectionId: string | null;
  business: BusinessState;
}

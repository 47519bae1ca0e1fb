import { ApiError } from '../../core/errors.ts';
import type { Principal } from '../../auth/principal.ts';
import type { Integration } from '../../db/schema.ts';
import { assertWritable as assertBusinessWritable } from '../../tenancy/businesses.ts';

// The dashboard's account rules that every create through the API follows (spec 7.2, 7.4, 7.5).

/** Suspended and archived accounts change nothing (also checked at admission, tenancy's assertWritable). */
export function assertWritable(principal: Principal): void {
  assertBusinessWritable(principal.business);
}

/** Everything that must hold before a payment can be asked for. */
export function assertCanTakePayments(principal: Principal, integration?: Exclude<Integration, 'api'>): void {
  assertWritable(principal);
  const { business } = principal;
  if (business.disabled_integrations.includes('api')) {
    throw new ApiError('integration_disabled', 'The API integration is disabled for this account.');
  }
  if (integration && business.disabled_integrations.includes(integration)) {
    throw new ApiError('integration_disabled', `The ${integration.replace('_', ' ')} integration is disabled for this account.`);
  }
  if (business.commerce === 'paused') {
    throw new ApiError('commerce_paused', 'This account has paused taking payments.');
  }
  if (principal.livemode && !business.payout_wallet) {
    throw new ApiError('no_payout_wallet', 'Set a payout wallet for this account before taking Live payments.');
  }
}

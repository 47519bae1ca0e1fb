import { z } from 'zod';
import { coded } from '../../core/validation.ts';
import type { BusinessRow, Integration } from '../../db/schema.ts';
import { checksumHolds } from '../../core/deposit-addresses.ts';
import { businessStateOf, INTEGRATIONS, PAYOUT_WALLET } from '../../tenancy/businesses.ts';
import { BrandColorField } from '../brand/color.ts';

const integrations = z.array(z.enum(INTEGRATIONS as [Integration, ...Integration[]], coded('invalid_integration', `integrations are ${INTEGRATIONS.join(', ')}.`)));

/**
 * A payout wallet as given: a 0x address whose mixed case, if any, passes its EIP-55 checksum
 * (a typo in a checksummed address is caught here, before any money is sent to it); null: none.
 */
export const PayoutWalletField = z.string(coded('invalid_payout_wallet', 'payout_wallet must be text.'))
  .regex(PAYOUT_WALLET, coded('invalid_payout_wallet', 'The payout wallet must be a 0x-prefixed address of 40 hexadecimal characters.'))
  .refine(checksumHolds, coded('invalid_payout_wallet', 'The payout wallet\'s capital letters do not match its checksum (EIP-55): check it for a typo, or copy it again from your wallet.'))
  .nullable();

/**
 * What the business's owners decide in one step: taking payments, crypto, integrations, the brand colour. The
 * payout wallet is not here: people change it only through a confirmation (request-wallet-change.ts).
 */
export const UpdateSettingsInput = z.object({
  commerce: z.enum(['active', 'paused'], coded('invalid_value', 'commerce must be active or paused.')).optional(),
  crypto_enabled: z.boolean(coded('invalid_value', 'crypto_enabled must be true or false.')).optional(),
  disable: integrations.optional(),
  enable: integrations.optional(),
  /** The pay button's colour on the payer pages (white text on it, checked for contrast); null: the service's own. */
  brand_color: BrandColorField.optional(),
});

/** What the service's operator decides besides the settings: whether the account may act at all, and its fee. */
export const UpdateAccountInput = UpdateSettingsInput.extend({
  payout_wallet: PayoutWalletField.optional(),
  status: z.enum(['active', 'suspended', 'archived'], coded('invalid_status', 'status must be active, suspended or archived.')).optional(),
  fee_bps: z.number(coded('invalid_fee', 'The fee must be a whole number of basis points from 0 to 10000.'))
    .int(coded('invalid_fee', 'The fee must be a whole number of basis points from 0 to 10000.'))
    .min(0, coded('invalid_fee', 'The fee must be a whole number of basis points from 0 to 10000.'))
    .max(10_000, coded('invalid_fee', 'The fee must be a whole number of basis points from 0 to 10000.'))
    .optional(),
});

export interface BusinessOut {
  id: string;
  object: 'business';
  name: string;
  status: BusinessRow['status'];
  commerce: BusinessRow['commerce'];
  disabled_integrations: Integration[];
  payout_wallet: string | null;
  crypto_enabled: boolean;
  fee_bps: number;
}

export function toBusinessOut(row: BusinessRow): BusinessOut {
  const { id, ...state } = businessStateOf(row);
  return { id, object: 'business', ...state };
}

import secureJson from 'secure-json-parse';
import { recoverTypedDataAddress } from 'viem';
import { z } from 'zod';
import { transferWithAuthorizationTypes } from '../../core/eip3009.ts';
import { MAX_TIMEOUT_SECONDS, VALID_BEFORE_MARGIN_SECONDS, X402_VERSION, type X402Requirement } from './offer.ts';

/** A client's clock may run this far ahead of ours: validBefore may end this much beyond maxTimeoutSeconds. */
const CLOCK_SKEW_SECONDS = 60;

// The buyer's paid retry (x402 version 2's PaymentPayload in PAYMENT-SIGNATURE) read and checked
// against what we offered, before anything is claimed or moved (docs/x402.md, "Refusals").

/**
 * Why an authorization is refused: the protocol's error reasons, as the official facilitator
 * (`@x402/evm` 2.x) names them where the spec's list has none of its own.
 */
export const X402_REASONS = {
  invalid_payload: 'PAYMENT-SIGNATURE is not standard base64 of an x402 version 2 payment payload with an EIP-3009 authorization and signature.',
  invalid_x402_version: 'This server speaks x402 version 2: send the payment in PAYMENT-SIGNATURE, built from the PAYMENT-REQUIRED header.',
  unsupported_scheme: 'Only the exact scheme is accepted.',
  invalid_network: 'The payment is on a network this payment does not accept now; PAYMENT-REQUIRED lists those it does.',
  invalid_payment_requirements: 'The token paid is not the one offered for that network.',
  invalid_exact_evm_recipient_mismatch: 'The authorization pays another address than this payment\'s payTo.',
  invalid_exact_evm_payload_authorization_value_mismatch: 'The authorization is not for exactly the amount asked.',
  invalid_exact_evm_payload_authorization_valid_after: 'The authorization is not valid yet (validAfter is in the future).',
  invalid_exact_evm_payload_authorization_valid_before: `The authorization has expired, expires within ${VALID_BEFORE_MARGIN_SECONDS} seconds, or ends more than maxTimeoutSeconds (${MAX_TIMEOUT_SECONDS} s) and a minute from now (validBefore).`,
  invalid_exact_evm_signature: 'The signature is not the payer\'s over this authorization and the token\'s EIP-712 domain.',
  invalid_exact_evm_nonce_already_used: 'This authorization was already used: sign a new one (a new nonce).',
  invalid_exact_evm_insufficient_balance: 'The payer\'s wallet does not hold the amount.',
  invalid_exact_evm_transaction_simulation_failed: 'The token refused the transfer when it was tried before sending it.',
  invalid_exact_evm_transaction_failed: 'The transaction carrying the authorization failed on the chain: nothing moved.',
  invalid_exact_evm_transfer_event_mismatch: 'The transaction carrying the authorization was mined but moved nothing to this payment.',
  unexpected_settle_error: 'The payment processor could not submit the authorization now: nothing moved. Try again later.',
  invalid_transaction_state: 'This payment cannot take this payment now: it is paid, closed, or another authorization for it is on its way.',
} as const;
export type X402Reason = keyof typeof X402_REASONS;

export class X402Refusal extends Error {
  readonly reason: X402Reason;
  constructor(reason: X402Reason) {
    super(X402_REASONS[reason]);
    this.reason = reason;
  }
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);
/** A uint256 as a decimal string: no more than the type holds (a larger one could never be sent). */
const uint = z.string().regex(/^\d{1,78}$/).refine((digits) => BigInt(digits) < 2n ** 256n);

const PaymentPayload = z.object({
  x402Version: z.literal(X402_VERSION),
  accepted: z.object({ scheme: z.string(), network: z.string(), asset: z.string() }),
  payload: z.object({
    authorization: z.object({ from: address, to: address, value: uint, validAfter: uint, validBefore: uint, nonce: z.string().regex(/^0x[0-9a-fA-F]{64}$/) }),
    // 65 bytes for an account's key; a smart account's (EIP-1271) may be longer.
    signature: z.string().regex(/^0x(?:[0-9a-fA-F]{2}){1,2048}$/),
  }),
});

export interface Authorization {
  from: `0x${string}`;
  to: `0x${string}`;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: `0x${string}`;
}

export interface VerifiedPayment {
  requirement: X402Requirement;
  /** Lowercase hex, as stored. */
  authorization: Authorization;
  signature: `0x${string}`;
  /** Whether the signature is the payer's own key's (else only the token can tell: a smart account, EIP-1271). */
  signedByKey: boolean;
}

/** The header's JSON, or a refusal when it is not base64 of a JSON object. */
function decode(header: string): unknown {
  const text = header.trim();
  if (text === '' || text.length % 4 !== 0 || !BASE64.test(text)) throw new X402Refusal('invalid_payload');
  try {
    return secureJson.parse(Buffer.from(text, 'base64').toString('utf8'), undefined, { protoAction: 'remove', constructorAction: 'remove' });
  } catch {
    throw new X402Refusal('invalid_payload');
  }
}

const lower = (hex: string) => hex.toLowerCase() as `0x${string}`;

/** The signature a PAYMENT-SIGNATURE carries, lowercase, when it is one: the same header sent again names the same claim. */
export function signatureOf(header: string): string | undefined {
  try {
    const parsed = PaymentPayload.safeParse(decode(header));
    return parsed.success ? lower(parsed.data.payload.signature) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Checks a PAYMENT-SIGNATURE against the requirements offered now: the version, the scheme, a
 * network and token offered, the recipient and the exact amount, the validity window at `now`,
 * and the signature over the token's EIP-712 domain. Throws X402Refusal with the reason.
 * `keyOnly`: a signature must be a key's (Test mode: no chain to ask a smart account).
 */
export async function verifyPayment(header: string, requirements: readonly X402Requirement[], now: Date, keyOnly: boolean): Promise<VerifiedPayment> {
  const json = decode(header);
  if (typeof json === 'object' && json !== null && 'x402Version' in json && json.x402Version !== X402_VERSION) throw new X402Refusal('invalid_x402_version');
  const parsed = PaymentPayload.safeParse(json);
  if (!parsed.success) throw new X402Refusal('invalid_payload');
  const { accepted, payload } = parsed.data;
  if (accepted.scheme !== 'exact') throw new X402Refusal('unsupported_scheme');
  const requirement = requirements.find((offered) => offered.network === accepted.network);
  if (!requirement) throw new X402Refusal('invalid_network');
  if (lower(accepted.asset) !== lower(requirement.asset)) throw new X402Refusal('invalid_payment_requirements');
  const given = payload.authorization;
  const authorization: Authorization = { ...given, from: lower(given.from), to: lower(given.to), nonce: lower(given.nonce) };
  if (authorization.to !== lower(requirement.payTo)) throw new X402Refusal('invalid_exact_evm_recipient_mismatch');
  if (BigInt(authorization.value) !== BigInt(requirement.amount)) throw new X402Refusal('invalid_exact_evm_payload_authorization_value_mismatch');
  const seconds = BigInt(Math.floor(now.getTime() / 1000));
  if (BigInt(authorization.validAfter) > seconds) throw new X402Refusal('invalid_exact_evm_payload_authorization_valid_after');
  // Bounded on both sides: an authorization that stays valid long after a refusal could still be
  // carried by anyone holding it, after the buyer paid again.
  const validBefore = BigInt(authorization.validBefore);
  if (validBefore < seconds + BigInt(VALID_BEFORE_MARGIN_SECONDS) || validBefore > seconds + BigInt(MAX_TIMEOUT_SECONDS + CLOCK_SKEW_SECONDS)) {
    throw new X402Refusal('invalid_exact_evm_payload_authorization_valid_before');
  }
  const signature = lower(payload.signature);
  const signedByKey = await recoversTo(requirement, authorization, signature);
  if (!signedByKey && keyOnly) throw new X402Refusal('invalid_exact_evm_signature');
  return { requirement, authorization, signature, signedByKey };
}

/** Whether the signature recovers to the authorization's `from` (an account's own key). */
async function recoversTo(requirement: X402Requirement, authorization: Authorization, signature: `0x${string}`): Promise<boolean> {
  if (signature.length !== 2 + 65 * 2) return false;
  try {
    const signer = await recoverTypedDataAddress({
      domain: { ...requirement.extra, chainId: Number(requirement.network.slice('eip155:'.length)), verifyingContract: requirement.asset },
      types: transferWithAuthorizationTypes,
      primaryType: 'TransferWithAuthorization',
      message: {
        from: authorization.from, to: authorization.to, value: BigInt(authorization.value),
        validAfter: BigInt(authorization.validAfter), validBefore: BigInt(authorization.validBefore), nonce: authorization.nonce,
      },
      signature,
    });
    return lower(signer) === authorization.from;
  } catch {
    return false;
  }
}

import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import type { PrivateKeyAccount } from 'viem/accounts';
import { transferWithAuthorizationTypes } from '../../src/core/eip3009.ts';

// The x402 tests' buyer (issue 33, docs/x402.md): the official client (@x402/fetch with
// @x402/evm, unchanged) and, for refusals, a paid retry built as that client builds it with one
// thing changed.

export const decodeHeader = (value: string | null) => JSON.parse(Buffer.from(value ?? '', 'base64').toString('utf8'));
export const encodeHeader = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');

/** The official client paying as `signer` (a key's account, or any signer such as a smart account's); `spend` as an agent's client would set its spend controls. */
export function payingFetch(signer: Parameters<typeof registerExactEvmScheme>[1]['signer'], spend?: Parameters<x402Client['setSpendControls']>[0]) {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer });
  if (spend !== undefined) client.setSpendControls(spend);
  return wrapFetchWithPayment(fetch, client);
}

export type HeaderChange = { from?: `0x${string}`; value?: string; to?: `0x${string}`; validBefore?: string; validAfter?: string; network?: string; signer?: PrivateKeyAccount; nonce?: `0x${string}` };

/** The buyer's signed retry for an offer's first entry, as the official client builds it, with `change` applied. */
export async function signedHeader(offer: any, buyer: PrivateKeyAccount, change: HeaderChange = {}): Promise<string> {
  const accepted = offer.accepts[0];
  const signer = change.signer ?? buyer;
  const message = {
    from: change.from ?? buyer.address, to: change.to ?? accepted.payTo, value: BigInt(change.value ?? accepted.amount),
    validAfter: BigInt(change.validAfter ?? '0'), validBefore: BigInt(change.validBefore ?? String(Math.floor(Date.now() / 1000) + 300)),
    nonce: change.nonce ?? `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex')}` as `0x${string}`,
  };
  const signature = await signer.signTypedData({
    domain: { ...accepted.extra, chainId: Number(accepted.network.split(':')[1]), verifyingContract: accepted.asset },
    types: transferWithAuthorizationTypes, primaryType: 'TransferWithAuthorization', message,
  });
  const authorization = Object.fromEntries(Object.entries(message).map(([name, value]) => [name, String(value)]));
  return encodeHeader({ x402Version: 2, resource: offer.resource, accepted: { ...accepted, network: change.network ?? accepted.network }, payload: { authorization, signature } });
}

/**
 * Keeps a test app's clock `lagMs` behind the wall clock, which the chain's blocks and the buyer's
 * client sign their windows by (the service refuses a window ending beyond maxTimeoutSeconds and a
 * minute by its own clock). Returns the stop.
 */
export function keepClockWithWall(t: { clock: { now(): Date }; jump(ms: number): Promise<void> }, lagMs = 0): () => void {
  const timer = setInterval(() => {
    const behind = Date.now() - lagMs - t.clock.now().getTime();
    if (behind > 0) void t.jump(behind).catch(() => undefined);
  }, 200);
  return () => clearInterval(timer);
}

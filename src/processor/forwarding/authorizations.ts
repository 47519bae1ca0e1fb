import {
  domainSeparator,
  encodeFunctionData,
  keccak256,
  parseSignature,
  stringToBytes,
  type Address,
  type Hex,
  type PrivateKeyAccount,
  type TypedDataDomain,
} from 'viem';
import { transferWithAuthorizationTypes } from '../../core/eip3009.ts';
import type { ForwardShare } from '../../db/schema.ts';
import { tokenAbi, type ForwardChain } from '../chain/forward-chain.ts';
import { usdcDomain } from '../chain/network-checks.ts';

// EIP-3009 authorizations as forwarding signs them: each share's nonce is derived from the forward
// (network, deposit transaction, log index, share), the authorization never expires and the
// deposit key's signature is deterministic (RFC 6979), so signing again gives the same
// authorization, and the token's authorizationState(deposit address, nonce) says whether it moved.

/** validBefore: never expires; it can only ever pay the share's wallet, whoever submits it. */
const NEVER = 2n ** 256n - 1n;

export function authorizationNonce(forward: { network: string; transfer_tx_hash: string; transfer_log_index: number }, share: ForwardShare): Hex {
  return keccak256(stringToBytes(`payment-service forward ${forward.network} ${forward.transfer_tx_hash} ${forward.transfer_log_index} ${share}`));
}

/** The token's EIP-712 domain isn't what it says it is. */
export class UnknownDomain extends Error {}

const domains = new Map<string, Promise<TypedDataDomain>>();

/**
 * The EIP-712 domain the processor signs for (USDC's, `usdcDomain`), once the token's own
 * DOMAIN_SEPARATOR() is that domain's: a signature under another domain would be refused on chain,
 * and a token with another name is not the coin the service priced (the start-up check says so too).
 */
export function tokenDomain(chain: ForwardChain, token: Address): Promise<TypedDataDomain> {
  const key = `${chain.network.chainId}:${token}`;
  let domain = domains.get(key);
  if (!domain) {
    domain = readDomain(chain, token);
    domains.set(key, domain);
    domain.catch(() => domains.delete(key));
  }
  return domain;
}

async function readDomain(chain: ForwardChain, token: Address): Promise<TypedDataDomain> {
  const separator = await chain.client.readContract({ address: token, abi: tokenAbi, functionName: 'DOMAIN_SEPARATOR' });
  const domain = usdcDomain(chain.network.chainId, token);
  if (separator.toLowerCase() !== domainSeparator({ domain }).toLowerCase()) {
    throw new UnknownDomain(`the token ${token.toLowerCase()} has an EIP-712 domain other than the one the processor signs for ("${domain.name}", version "${domain.version}")`);
  }
  return domain;
}

export interface ShareTransfer {
  share: ForwardShare;
  to: Address;
  value: bigint;
  nonce: Hex;
}

/** transferWithAuthorization's calldata for one share, signed by the deposit key. */
export async function signedTransfer(deposit: PrivateKeyAccount, domain: TypedDataDomain, transfer: ShareTransfer): Promise<Hex> {
  const message = { from: deposit.address, to: transfer.to, value: transfer.value, validAfter: 0n, validBefore: NEVER, nonce: transfer.nonce };
  const signature = await deposit.signTypedData({ domain, types: transferWithAuthorizationTypes, primaryType: 'TransferWithAuthorization', message });
  const { v, r, s } = parseSignature(signature);
  return encodeFunctionData({
    abi: tokenAbi,
    functionName: 'transferWithAuthorization',
    args: [message.from, message.to, message.value, message.validAfter, message.validBefore, message.nonce, Number(v), r, s],
  });
}

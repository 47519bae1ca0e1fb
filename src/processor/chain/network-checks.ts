import {
  BaseError,
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
  domainSeparator,
  type Address,
  type Hex,
  type TypedDataDomain,
} from 'viem';
import type { NetworkConfig, TokenConfig } from '../../core/networks-config.ts';
import { isRevert, tokenAbi, type ForwardChain } from './forward-chain.ts';
import { rpcFailure, rpcOrigin } from './rpc-failure.ts';

// A network's configuration checked against the chain (issue 30, must have 2), at start and every
// CHECK_EVERY_MS while running: the chain id, code at every token and at the batch contract, each
// token's decimals() (the service prices its coins in 6), and USDC's EIP-712 domain. A failed check
// is one sentence naming the variable, the address and what was found; it refuses that network
// only (never throws the process down), and the processor reports it unhealthy until it passes.

/** How often a running processor checks each network's configuration again (moved by the injected clock in tests). */
export const CHECK_EVERY_MS = 10 * 60_000;
/** The decimals the service prices every coin in (amounts in notices and on payments have six). */
export const PRICED_DECIMALS = 6;
/**
 * The EIP-712 domain name and version the processor signs EIP-3009 transfers for: Circle's USDC
 * ("USD Coin", version "2") on every network it knows; the chain id and verifying contract are the
 * network's and the token's.
 */
export const USDC_DOMAIN = { name: 'USD Coin', version: '2' } as const;

export function usdcDomain(chainId: number, token: Address): TypedDataDomain {
  return { ...USDC_DOMAIN, chainId, verifyingContract: token };
}

export type NetworkVerdict =
  /** Every check passed: the network as configured, each token with the decimals its contract answered. */
  | { state: 'ok'; network: NetworkConfig }
  /** A check failed: the network is not worked, and reported unhealthy with the problem. */
  | { state: 'refused'; network: NetworkConfig; problem: string }
  /** The node did not answer (not a configuration fault): not worked yet, checked again next poll. */
  | { state: 'unchecked'; network: NetworkConfig; problem: string };

class Refused extends Error {}

/** Whether the contract refused the call (it has no such function, or reverted), as opposed to a node not answering. */
function contractRefused(error: unknown): boolean {
  return error instanceof BaseError
    && (error.walk((cause) => cause instanceof ContractFunctionRevertedError || cause instanceof ContractFunctionZeroDataError) !== null || isRevert(error));
}

const variableOf = (token: TokenConfig) => token.coin.toUpperCase();
const domainText = (domain: TypedDataDomain) =>
  `"${domain.name}", version "${domain.version}", chain id ${domain.chainId}, verifying contract ${String(domain.verifyingContract).toLowerCase()}`;

/** Checks one network's configuration against its chain; answers a verdict, never throws. */
export async function checkNetwork(chain: ForwardChain): Promise<NetworkVerdict> {
  const network = chain.network;
  const prefix = network.name.toUpperCase();
  const client = chain.client;
  try {
    const chainId = await client.getChainId();
    if (chainId !== network.chainId) {
      throw new Refused(`${prefix}_CHAIN_ID is ${network.chainId}, but the node at ${prefix}_RPC_URL answers chain id ${chainId}.`);
    }
    const hasCode = async (address: Address) => ((await client.getCode({ address })) ?? '0x') !== '0x';
    const tokens: TokenConfig[] = [];
    for (const token of network.tokens) {
      const address = token.address as Address;
      if (!(await hasCode(address))) throw new Refused(`${variableOf(token)} ${token.address} has no contract code on ${network.name} (chain id ${network.chainId}).`);
      const decimals = await client.readContract({ address, abi: decimalsAbi, functionName: 'decimals' }).catch((error: unknown) => {
        if (contractRefused(error)) throw new Refused(`${variableOf(token)} ${token.address} does not answer decimals(); the service prices ${token.coin} in ${PRICED_DECIMALS} decimals.`);
        throw error;
      });
      if (decimals !== PRICED_DECIMALS) {
        throw new Refused(`${variableOf(token)} ${token.address} has decimals() ${decimals}; the service prices ${token.coin} in ${PRICED_DECIMALS} decimals.`);
      }
      if (token.coin.endsWith('_usdc')) await checkDomain(chain, token);
      tokens.push({ ...token, decimals });
    }
    const multicall = network.multicall;
    if (multicall && !(await hasCode(multicall as Address))) {
      throw new Refused(`${prefix}_MULTICALL ${multicall} has no contract code on ${network.name}, and forwards are batched through it (Multicall3's aggregate3).`);
    }
    return { state: 'ok', network: { ...network, tokens } };
  } catch (error) {
    if (error instanceof Refused) return { state: 'refused', network, problem: error.message };
    return { state: 'unchecked', network, problem: `${network.name}: its configuration could not be checked: ${network.rpcUrls.map(rpcOrigin).join(', ')}: ${rpcFailure(error)}` };
  }
}

/**
 * USDC's EIP-712 domain, read from the contract: ERC-5267's eip712Domain() where it has it, else
 * its DOMAIN_SEPARATOR() against the one of the domain the processor signs for.
 */
async function checkDomain(chain: ForwardChain, token: TokenConfig): Promise<void> {
  const address = token.address as Address;
  const signed = usdcDomain(chain.network.chainId, address);
  const read = <T>(functionName: 'eip712Domain' | 'DOMAIN_SEPARATOR') => (chain.client.readContract({ address, abi: tokenAbi, functionName }) as Promise<T>)
    .catch((error: unknown) => {
      if (contractRefused(error)) return undefined;
      throw error;
    });
  const eip5267 = await read<readonly [Hex, string, string, bigint, Address, Hex, readonly bigint[]]>('eip712Domain');
  if (eip5267) {
    const [, name, version, chainId, verifyingContract] = eip5267;
    const found = { name, version, chainId: Number(chainId), verifyingContract };
    if (domainText(found) !== domainText(signed)) {
      throw new Refused(`${variableOf(token)} ${token.address} has the EIP-712 domain ${domainText(found)}; the processor signs for ${domainText(signed)}.`);
    }
    return;
  }
  const separator = await read<Hex>('DOMAIN_SEPARATOR');
  if (separator === undefined) {
    throw new Refused(`${variableOf(token)} ${token.address} answers neither eip712Domain() nor DOMAIN_SEPARATOR(), so it takes no EIP-3009 transfer the processor signs for ${domainText(signed)}.`);
  }
  if (separator.toLowerCase() !== domainSeparator({ domain: signed }).toLowerCase()) {
    throw new Refused(`${variableOf(token)} ${token.address} has a DOMAIN_SEPARATOR() other than that of the EIP-712 domain the processor signs for (${domainText(signed)}).`);
  }
}

const decimalsAbi = [{ type: 'function', name: 'decimals', stateMutability: 'view', inputs: [], outputs: [{ name: '', type: 'uint8' }] }] as const;

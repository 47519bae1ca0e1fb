import type { Address } from 'viem';
import type { NetworkConfig } from '../../src/core/networks-config.ts';
import { startChain, type TestChain } from './chain.ts';
import { deployFiatToken, type FiatToken } from './chain-fiat-token.ts';
import { deployMulticall } from './chain-multicall.ts';
import { deployTestTokens, type TestTokens } from './chain-tokens.ts';
import { startRpcProxy, type RpcProxy } from './rpc-proxy.ts';

// A test chain posing as Polygon for a processor test file: both test tokens and our Multicall3
// deployed (the processor refuses a network whose batch contract has no code), the buyer holding
// 10,000 of each, the misbehaving RPC proxy in front, and the network as the processor is
// configured for it (through the proxy, final at `depth` blocks behind the head). `realUsdc` adds
// Circle's FiatTokenV2_2 behind its proxy (the buyer holding 10,000 of it too), not configured.

export const usdc = (dollars: number) => BigInt(dollars) * 1_000_000n;

export type PolygonTestChain = {
  chain: TestChain; tokens: TestTokens; proxy: RpcProxy; polygon: NetworkConfig; multicall: Address;
  /** Circle's FiatTokenV2_2, when asked for. */
  fiat?: FiatToken;
  stop(): Promise<void>;
};

export async function startPolygonChain({ depth, realUsdc = false, sameTimestamps = false }: { depth: number; realUsdc?: boolean; sameTimestamps?: boolean }): Promise<PolygonTestChain> {
  const chain = await startChain({ chainId: 137, sameTimestamps });
  const [tokens, proxy] = await Promise.all([deployTestTokens(chain), startRpcProxy(chain.url, { hangLimitMs: 2_000 })]);
  const multicall = await deployMulticall(chain);
  await tokens.mint('usdc', chain.accounts.buyer.address, usdc(10_000));
  await tokens.mint('usdt', chain.accounts.buyer.address, usdc(10_000));
  const fiat = realUsdc ? await deployFiatToken(chain) : undefined;
  await fiat?.mint(chain.accounts.buyer.address, usdc(10_000));
  const polygon: NetworkConfig = {
    name: 'polygon', rpcUrls: [proxy.url], chainId: 137, confirmations: depth,
    tokens: [
      { coin: 'polygon_usdc', address: tokens.address.usdc.toLowerCase() as `0x${string}` },
      { coin: 'polygon_usdt', address: tokens.address.usdt.toLowerCase() as `0x${string}` },
    ],
    multicall: multicall.toLowerCase() as `0x${string}`,
  };
  return {
    chain, tokens, proxy, polygon, multicall, fiat,
    async stop() {
      await proxy.stop();
      await chain.stop();
    },
  };
}

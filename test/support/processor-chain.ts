import type { NetworkConfig } from '../../src/core/networks-config.ts';
import { startChain, type TestChain } from './chain.ts';
import { deployTestTokens, type TestTokens } from './chain-tokens.ts';
import { startRpcProxy, type RpcProxy } from './rpc-proxy.ts';

// A test chain posing as Polygon for a processor test file: both test tokens deployed, the buyer
// holding 10,000 of each, the misbehaving RPC proxy in front, and the network as the processor
// is configured for it (through the proxy, final at `depth` blocks behind the head).

export const usdc = (dollars: number) => BigInt(dollars) * 1_000_000n;

export type PolygonTestChain = { chain: TestChain; tokens: TestTokens; proxy: RpcProxy; polygon: NetworkConfig; stop(): Promise<void> };

export async function startPolygonChain({ depth }: { depth: number }): Promise<PolygonTestChain> {
  const chain = await startChain({ chainId: 137 });
  const [tokens, proxy] = await Promise.all([deployTestTokens(chain), startRpcProxy(chain.url, { hangLimitMs: 2_000 })]);
  await tokens.mint('usdc', chain.accounts.buyer.address, usdc(10_000));
  await tokens.mint('usdt', chain.accounts.buyer.address, usdc(10_000));
  const polygon: NetworkConfig = {
    name: 'polygon', rpcUrls: [proxy.url], chainId: 137, confirmations: depth,
    tokens: [
      { coin: 'polygon_usdc', address: tokens.address.usdc.toLowerCase() as `0x${string}` },
      { coin: 'polygon_usdt', address: tokens.address.usdt.toLowerCase() as `0x${string}` },
    ],
  };
  return {
    chain, tokens, proxy, polygon,
    async stop() {
      await proxy.stop();
      await chain.stop();
    },
  };
}

import { z } from 'zod';
import { checksumHolds } from './deposit-addresses.ts';
import { StartupError } from './errors.ts';

// The chains the processor watches (issue 22): a network is configured when its RPC URL is set.
// Each has its chain id (checked against eth_chainId when the processor starts), how final a
// block must be, and its token contracts (the native ones unless overridden).

export type NetworkName = 'polygon' | 'base' | 'ethereum';
export type Coin = 'polygon_usdc' | 'polygon_usdt' | 'base_usdc' | 'ethereum_usdc';

/** Each coin as people read it: the token, then its network. */
export const COIN_NAMES: Readonly<Record<Coin, string>> = {
  polygon_usdc: 'USDC on Polygon',
  polygon_usdt: 'USDT on Polygon',
  ethereum_usdc: 'USDC on Ethereum',
  base_usdc: 'USDC on Base',
};

export interface TokenConfig {
  /** The coin as the service names it (payments.coin). */
  coin: Coin;
  /** The contract, lowercase. */
  address: `0x${string}`;
  /** Its decimals() as the processor's configuration check read it from the chain; unset until checked. */
  decimals?: number;
}

export interface NetworkConfig {
  name: NetworkName;
  /** Tried in order: the next when one fails. */
  rpcUrls: string[];
  chainId: number;
  /** Blocks behind the head a block must be to count as final; undefined: the chain's `finalized` block. */
  confirmations: number | undefined;
  tokens: TokenConfig[];
  /** The batch contract forwards go through (Multicall3's aggregate3), lowercase; unset: MULTICALL3. */
  multicall?: `0x${string}`;
}

/** Multicall3, deployed at this address on every chain the processor knows (`<NETWORK>_MULTICALL` overrides it). */
export const MULTICALL3 = '0xca11bde05977b3631167028862be2a173976ca11';

const NATIVE: Record<NetworkName, { chainId: number; tokens: Array<{ coin: Coin; env: string; address: string }> }> = {
  polygon: {
    chainId: 137,
    tokens: [
      { coin: 'polygon_usdc', env: 'POLYGON_USDC', address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359' },
      { coin: 'polygon_usdt', env: 'POLYGON_USDT', address: '0xc2132D05D31c914a87C6611C10748AEb04B58e8F' },
    ],
  },
  base: { chainId: 8453, tokens: [{ coin: 'base_usdc', env: 'BASE_USDC', address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' }] },
  ethereum: { chainId: 1, tokens: [{ coin: 'ethereum_usdc', env: 'ETHEREUM_USDC', address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48' }] },
};

/** The coins each network's processor may watch, as the service names them (processor.status checks its list against this). */
export const NETWORK_COINS: Readonly<Record<NetworkName, readonly Coin[]>> = {
  polygon: NATIVE.polygon.tokens.map((token) => token.coin),
  base: NATIVE.base.tokens.map((token) => token.coin),
  ethereum: NATIVE.ethereum.tokens.map((token) => token.coin),
};

export const NETWORK_NAMES = Object.keys(NATIVE) as NetworkName[];

const RpcUrls = z.string().transform((text) => text.split(',').map((url) => url.trim()).filter((url) => url !== ''))
  .pipe(z.array(z.url({ protocol: /^https?$/, error: 'each URL must be http:// or https://' })).min(1, 'at least one http(s) URL'));
const ChainId = z.coerce.number().int().min(1).max(2 ** 53 - 1);
const Confirmations = z.coerce.number().int().min(0).max(10_000);
const Contract = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'a 0x address of 40 hex digits')
  .refine(checksumHolds, 'its letter case fails the EIP-55 checksum (a mistyped address?)');

function parse<T>(schema: z.ZodType<T>, name: string, value: string, problems: string[]): T | undefined {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  problems.push(`  ${name}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return undefined;
}

/** What networksConfig reads of each network, after its name in capitals (POLYGON_RPC_URL). */
const NETWORK_SETTINGS = ['RPC_URL', 'CHAIN_ID', 'CONFIRMATIONS', 'MULTICALL'] as const;

/** Every variable networksConfig reads: each network's settings and token contracts (the configuration reference lists them). */
export function networkVariableNames(): string[] {
  return (Object.entries(NATIVE) as Array<[NetworkName, (typeof NATIVE)[NetworkName]]>).flatMap(([name, native]) => [
    ...NETWORK_SETTINGS.map((setting) => `${name.toUpperCase()}_${setting}`),
    ...native.tokens.map((token) => token.env),
  ]);
}

/** The configured networks, in a fixed order; refuses (naming every bad variable) an invalid value. */
export function networksConfig(env: NodeJS.ProcessEnv): NetworkConfig[] {
  const problems: string[] = [];
  const networks: NetworkConfig[] = [];
  for (const [name, native] of Object.entries(NATIVE) as Array<[NetworkName, (typeof NATIVE)[NetworkName]]>) {
    const prefix = name.toUpperCase();
    const value = (suffix: string) => {
      const text = env[`${prefix}_${suffix}`];
      return text === undefined || text.trim() === '' ? undefined : text.trim();
    };
    const tokens = native.tokens.map(({ coin, env: variable, address }) => {
      const given = env[variable]?.trim();
      const parsed = given ? parse(Contract, variable, given, problems) : address;
      return { coin, address: (parsed ?? address).toLowerCase() as `0x${string}` };
    });
    const chainIdText = value('CHAIN_ID');
    const chainId = chainIdText === undefined ? native.chainId : parse(ChainId, `${prefix}_CHAIN_ID`, chainIdText, problems);
    const depthText = value('CONFIRMATIONS');
    const confirmations = depthText === undefined ? undefined : parse(Confirmations, `${prefix}_CONFIRMATIONS`, depthText, problems);
    const multicallText = value('MULTICALL');
    const multicall = (multicallText === undefined ? MULTICALL3 : parse(Contract, `${prefix}_MULTICALL`, multicallText, problems) ?? MULTICALL3).toLowerCase() as `0x${string}`;
    const urlsText = env[`${prefix}_RPC_URL`];
    if (urlsText === undefined || urlsText.trim() === '') continue;
    const rpcUrls = parse(RpcUrls, `${prefix}_RPC_URL`, urlsText, problems);
    if (rpcUrls && chainId !== undefined) networks.push({ name, rpcUrls, chainId, confirmations, tokens, multicall });
  }
  if (problems.length > 0) throw new StartupError(`Invalid configuration:\n${problems.join('\n')}`);
  return networks;
}

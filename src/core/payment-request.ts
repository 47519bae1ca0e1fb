import { toChecksumAddress } from './deposit-addresses.ts';

// The payment request a buyer's wallet scans: an ERC-681 URI naming the token contract, its chain
// and the amount in the token's base units, so one code carries everything a transfer needs.
// https://eips.ethereum.org/EIPS/eip-681 — ethereum:<token>@<chain id>/transfer?address=<to>&uint256=<units>

export interface AcceptedCoin {
  /** The token's ticker, as a buyer's wallet shows it. */
  token: string;
  /** The network's everyday name. */
  network: string;
  /** EIP-155 chain id. */
  chainId: number;
  /** The token contract, EIP-55 checksummed. */
  contract: string;
  /** The token's decimals: 6 or more, so a micro-unit amount converts exactly. */
  decimals: number;
}

// Contracts as Circle lists them (developers.circle.com/stablecoins/usdc-contract-addresses, and
// its Quick Reference in github.com/circlefin/skills plugins/circle/skills/use-usdc/SKILL.md, both
// native USDC with 6 decimals). Chain ids: 137 in Polygon's network config (github.com/maticnetwork/
// static network/mainnet/v1/index.json), 8453 in docs.base.org/network-information, 1 in EIP-155.
// polygon_usdt is left out: no page of Tether's own confirmed its Polygon contract.
export const ACCEPTED_COINS = {
  polygon_usdc: { token: 'USDC', network: 'Polygon', chainId: 137, contract: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', decimals: 6 },
  ethereum_usdc: { token: 'USDC', network: 'Ethereum', chainId: 1, contract: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', decimals: 6 },
  base_usdc: { token: 'USDC', network: 'Base', chainId: 8453, contract: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', decimals: 6 },
} as const satisfies Record<string, AcceptedCoin>;

export type AcceptedCoinId = keyof typeof ACCEPTED_COINS;

/** Amounts of coin are micro-units inside ("25.000000" is 25_000_000n). */
const MICRO_DECIMALS = 6;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export function isAcceptedCoin(coin: string): coin is AcceptedCoinId {
  return Object.hasOwn(ACCEPTED_COINS, coin);
}

function acceptedCoin(coin: string): AcceptedCoin {
  if (!isAcceptedCoin(coin)) throw new Error(`No payment request for ${JSON.stringify(coin)}: not a coin in ACCEPTED_COINS.`);
  return ACCEPTED_COINS[coin];
}

/** The coin named plainly: { token: 'USDC', network: 'Polygon' }. */
export function coinLabel(coin: string): { token: string; network: string } {
  const { token, network } = acceptedCoin(coin);
  return { token, network };
}

/**
 * `to` checksummed. All-lowercase and all-uppercase hex carry no checksum and are taken as they
 * are; mixed case that fails EIP-55 is a mistyped address and is refused.
 */
function recipient(to: string): string {
  if (!ADDRESS.test(to)) throw new TypeError(`A payment request goes to an EVM address (0x and 40 hex digits), not ${JSON.stringify(to)}.`);
  const hex = to.slice(2);
  const checksummed = toChecksumAddress(hex);
  const mixedCase = hex !== hex.toLowerCase() && hex !== hex.toUpperCase();
  if (mixedCase && checksummed !== to) throw new TypeError(`${to} fails its EIP-55 checksum: a character is mistyped.`);
  return checksummed;
}

export interface PaymentRequest {
  coin: string;
  /** The deposit address the buyer pays to. */
  to: string;
  amountMicros: bigint;
  /** The token contract the processor watches for this coin, when configured otherwise than the native one (a local chain). */
  contract?: string;
}

/** The ERC-681 URI of a transfer of `amountMicros` of `coin` to `to`. */
export function paymentRequestUri({ coin, to, amountMicros, contract: configured }: PaymentRequest): string {
  const { chainId, decimals } = acceptedCoin(coin);
  const contract = configured === undefined ? acceptedCoin(coin).contract : recipient(configured);
  if (typeof amountMicros !== 'bigint') throw new TypeError('A payment request takes the amount as bigint micro-units, never a float.');
  if (amountMicros <= 0n) throw new RangeError(`A payment request asks for more than nothing, not ${amountMicros} micro-units.`);
  const units = amountMicros * 10n ** BigInt(decimals - MICRO_DECIMALS);
  return `ethereum:${contract}@${chainId}/transfer?address=${recipient(to)}&uint256=${units}`;
}

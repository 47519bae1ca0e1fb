import { getAddress, keccak256, stringToBytes } from 'viem';
import type { NetworkConfig } from '../../core/networks-config.ts';
import { ACCEPTED_COINS, type AcceptedCoinId } from '../../core/payment-request.ts';

// What a payment accepts over HTTP 402 (x402 version 2, docs/x402.md): the `exact` scheme with an
// EIP-3009 `transferWithAuthorization` of USDC, one entry per network that can take it now.

export const X402_VERSION = 2;
export const X402_PATH = '/x402/pay';

/** An authorization must still be valid this long when it reaches us: time to submit it. */
export const VALID_BEFORE_MARGIN_SECONDS = 6;
/** How long the buyer's authorization is asked to stay valid (the client's validBefore = now + this). */
export const MAX_TIMEOUT_SECONDS = 300;

/**
 * Test mode's network: Base Sepolia's CAIP-2 id and its USDC, the token the official client knows
 * there (its default spend controls allow it), so an unchanged client pays a Test link. Nothing is
 * sent to that chain: a Test authorization is verified as a Live one, then settled by the simulation.
 */
export const TEST_NETWORK = 'eip155:84532';
const TEST_ASSET = getAddress('0x036cbd53842c5426634e7929541ec2318f3dcf7e');
const TEST_DOMAIN = { name: 'USDC', version: '2' } as const;
/** Native USDC's EIP-712 domain on every Live network (the processor checks it: network-checks.ts). */
const USDC_DOMAIN = { name: 'USD Coin', version: '2' } as const;

/** The Live coins whose token takes EIP-3009 authorizations, in the order they are offered. */
export const X402_COINS: readonly AcceptedCoinId[] = ['polygon_usdc', 'base_usdc', 'ethereum_usdc'];

/** One accepted way to pay (the protocol's PaymentRequirements). */
export interface X402Requirement {
  scheme: 'exact';
  network: `eip155:${number}`;
  amount: string;
  asset: `0x${string}`;
  payTo: `0x${string}`;
  maxTimeoutSeconds: number;
  extra: { name: string; version: string };
}

/** The 402's document (the protocol's PaymentRequired). */
export interface X402PaymentRequired {
  x402Version: typeof X402_VERSION;
  error?: string;
  resource: { url: string; description: string; mimeType: string };
  accepts: X402Requirement[];
}

/** What the offer is made of: the payment as its start locked it. */
export interface Offered {
  id: string;
  livemode: boolean;
  description: string;
  /** The USD value locked at the start, in cents; the amount asked is exactly this. */
  usdValueMinor: number;
  depositAddress: string | null;
}

export function x402Url(baseUrl: string, paymentId: string): string {
  return `${baseUrl}${X402_PATH}/${encodeURIComponent(paymentId)}`;
}

/** A Test payment's stand-in recipient: an address no key holds, fixed by the payment's id. */
export function testPayTo(paymentId: string): `0x${string}` {
  return getAddress(`0x${keccak256(stringToBytes(`x402 test recipient ${paymentId}`)).slice(-40)}`);
}

/** USDC's units (six decimals) of a USD value in cents. */
export function unitsOfCents(cents: number): string {
  return (BigInt(cents) * 10_000n).toString();
}

/** The network's CAIP-2 id and its USDC contract: as the processor watches them (configuration), else the native ones. */
function liveCoin(coin: AcceptedCoinId, networks: readonly NetworkConfig[]): { network: `eip155:${number}`; asset: `0x${string}` } {
  const configured = networks.flatMap((network) => network.tokens.map((token) => ({ network, token }))).find((entry) => entry.token.coin === coin);
  const chainId = configured?.network.chainId ?? ACCEPTED_COINS[coin].chainId;
  return { network: `eip155:${chainId}`, asset: getAddress(configured?.token.address ?? ACCEPTED_COINS[coin].contract) };
}

/** Each way this payment can be paid over x402 now: Live, the served USDC networks; Test, Test mode's one. */
export function requirementsFor(offered: Offered, served: readonly AcceptedCoinId[], networks: readonly NetworkConfig[]): X402Requirement[] {
  const amount = unitsOfCents(offered.usdValueMinor);
  const entry = (network: `eip155:${number}`, asset: `0x${string}`, payTo: `0x${string}`, extra: { name: string; version: string }): X402Requirement =>
    ({ scheme: 'exact', network, amount, asset, payTo, maxTimeoutSeconds: MAX_TIMEOUT_SECONDS, extra: { ...extra } });
  if (!offered.livemode) return [entry(TEST_NETWORK, TEST_ASSET, testPayTo(offered.id), TEST_DOMAIN)];
  if (offered.depositAddress === null) return [];
  const payTo = getAddress(offered.depositAddress);
  return X402_COINS.filter((coin) => served.includes(coin)).map((coin) => {
    const { network, asset } = liveCoin(coin, networks);
    return entry(network, asset, payTo, USDC_DOMAIN);
  });
}

/** The coin and network a requirement pays in, as payments name them (Test mode's: Base's USDC, simulated). */
export function coinOf(requirement: Pick<X402Requirement, 'network' | 'asset'>, livemode: boolean, networks: readonly NetworkConfig[]): AcceptedCoinId | undefined {
  if (!livemode) return requirement.network === TEST_NETWORK ? 'base_usdc' : undefined;
  return X402_COINS.find((coin) => {
    const { network, asset } = liveCoin(coin, networks);
    return network === requirement.network && asset.toLowerCase() === requirement.asset.toLowerCase();
  });
}

export function paymentRequired(baseUrl: string, offered: Offered, accepts: X402Requirement[], error?: string): X402PaymentRequired {
  return {
    x402Version: X402_VERSION,
    ...(error === undefined ? {} : { error }),
    resource: { url: x402Url(baseUrl, offered.id), description: offered.description, mimeType: 'application/json' },
    accepts,
  };
}

/** A header's value: standard base64 (with + / =, as the protocol's decoders require) of the JSON. */
export function encodeHeader(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64');
}

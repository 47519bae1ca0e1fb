import { describe, expect, it } from 'vitest';
import { getAddress } from 'viem';
import { networksConfig } from '../../src/core/networks-config.ts';
import { coinOf, encodeHeader, requirementsFor, testPayTo, unitsOfCents } from '../../src/resources/x402/offer.ts';

// What a payment offers over x402 (docs/x402.md): Live, one exact entry per served network whose
// USDC takes EIP-3009, as the processor watches it; Test, Test mode's one network.

const DEPOSIT = '0x00000000000000000000000000000000000000aa';
const live = { id: 'pay_1', livemode: true, description: 'Tea', usdValueMinor: 2550, depositAddress: DEPOSIT };

describe('requirementsFor', () => {
  it('Live: the served USDC networks in a fixed order, USDT left out, the native contracts and chain ids', () => {
    const accepts = requirementsFor(live, ['ethereum_usdc', 'polygon_usdc', 'base_usdc'], []);
    expect(accepts.map((entry) => [entry.network, entry.asset])).toEqual([
      ['eip155:137', '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359'],
      ['eip155:8453', '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'],
      ['eip155:1', '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'],
    ]);
    for (const entry of accepts) {
      expect(entry).toMatchObject({ scheme: 'exact', amount: '25500000', payTo: getAddress(DEPOSIT), maxTimeoutSeconds: 300, extra: { name: 'USD Coin', version: '2' } });
    }
    expect(requirementsFor(live, ['polygon_usdc'], []).map((entry) => entry.network)).toEqual(['eip155:137']);
    expect(requirementsFor(live, [], [])).toEqual([]);
  });

  it('Live: a network configured with another chain id and token (a local chain) is offered as configured', () => {
    const token = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
    const networks = networksConfig({ POLYGON_RPC_URL: 'http://127.0.0.1:8545', POLYGON_CHAIN_ID: '31337', POLYGON_USDC: token });
    const [entry] = requirementsFor(live, ['polygon_usdc'], networks);
    expect(entry).toMatchObject({ network: 'eip155:31337', asset: token });
    expect(coinOf(entry!, true, networks)).toBe('polygon_usdc');
    expect(coinOf({ network: 'eip155:137', asset: token }, true, networks)).toBeUndefined();
  });

  it('Test: Base Sepolia\'s USDC, a recipient fixed by the payment, no deposit address needed', () => {
    const [entry, ...rest] = requirementsFor({ ...live, livemode: false, depositAddress: null }, [], []);
    expect(rest).toEqual([]);
    expect(entry).toEqual({
      scheme: 'exact', network: 'eip155:84532', amount: '25500000', asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
      payTo: testPayTo('pay_1'), maxTimeoutSeconds: 300, extra: { name: 'USDC', version: '2' },
    });
    expect(testPayTo('pay_1')).not.toBe(testPayTo('pay_2'));
    expect(coinOf(entry!, false, [])).toBe('base_usdc');
  });

  it('amounts are exact in six decimals; headers are standard base64 of the JSON', () => {
    expect(unitsOfCents(1)).toBe('10000');
    expect(unitsOfCents(10_000_000)).toBe('100000000000');
    const header = encodeHeader({ description: 'Thé ✓ <b>' });
    expect(header).toMatch(/^[A-Za-z0-9+/]*={0,2}$/);
    expect(JSON.parse(Buffer.from(header, 'base64').toString('utf8'))).toEqual({ description: 'Thé ✓ <b>' });
  });
});

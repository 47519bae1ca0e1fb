import { describe, expect, it } from 'vitest';
import { toChecksumAddress } from '../../src/core/deposit-addresses.ts';
import { ACCEPTED_COINS, coinLabel, paymentRequestUri } from '../../src/core/payment-request.ts';
import { toMicros } from '../../src/resources/orders/derive.ts';

// The ERC-681 payment requests a buyer's wallet scans, exactly as the wallet reads them.

const TO = '0x8e23Ee67d1332aD560396262C48ffbB01F93D052';
const amountMicros = toMicros('25.000000');

describe('paymentRequestUri', () => {
  it.each([
    ['polygon_usdc', 'ethereum:0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359@137/transfer?address=0x8e23Ee67d1332aD560396262C48ffbB01F93D052&uint256=25000000'],
    ['ethereum_usdc', 'ethereum:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48@1/transfer?address=0x8e23Ee67d1332aD560396262C48ffbB01F93D052&uint256=25000000'],
    ['base_usdc', 'ethereum:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913@8453/transfer?address=0x8e23Ee67d1332aD560396262C48ffbB01F93D052&uint256=25000000'],
  ])('%s: the token contract, its chain, the recipient and the amount in base units', (coin, uri) => {
    expect(paymentRequestUri({ coin, to: TO, amountMicros })).toBe(uri);
  });

  it('carries fractions of a coin exactly', () => {
    expect(paymentRequestUri({ coin: 'polygon_usdc', to: TO, amountMicros: toMicros('0.000001') })).toMatch(/&uint256=1$/);
    expect(paymentRequestUri({ coin: 'polygon_usdc', to: TO, amountMicros: toMicros('1234567.890123') })).toMatch(/&uint256=1234567890123$/);
  });

  it('gives the recipient checksummed, whatever case it came in', () => {
    for (const to of [TO.toLowerCase(), `0x${TO.slice(2).toUpperCase()}`]) {
      expect(paymentRequestUri({ coin: 'base_usdc', to, amountMicros })).toContain(`address=${TO}&`);
    }
  });

  it('names every token contract by its EIP-55 checksummed address', () => {
    for (const { contract } of Object.values(ACCEPTED_COINS)) expect(toChecksumAddress(contract.slice(2))).toBe(contract);
  });

  it.each([
    ['no 0x', TO.slice(2)],
    ['too short', TO.slice(0, -1)],
    ['not hex', `${TO.slice(0, -1)}g`],
    ['a mixed-case address failing its checksum', TO.replace('Ee', 'eE')],
    ['an ENS name', 'shop.eth'],
  ])('refuses %s as the recipient', (_name, to) => {
    expect(() => paymentRequestUri({ coin: 'polygon_usdc', to, amountMicros })).toThrow(TypeError);
  });

  it('refuses a zero or negative amount, and a number', () => {
    expect(() => paymentRequestUri({ coin: 'polygon_usdc', to: TO, amountMicros: 0n })).toThrow(RangeError);
    expect(() => paymentRequestUri({ coin: 'polygon_usdc', to: TO, amountMicros: -1n })).toThrow(RangeError);
    // @ts-expect-error an amount is never a float
    expect(() => paymentRequestUri({ coin: 'polygon_usdc', to: TO, amountMicros: 25 })).toThrow(TypeError);
  });

  it.each(['polygon_usdt', 'bitcoin', 'toString', ''])('throws on a coin it has no contract for: %j', (coin) => {
    expect(() => paymentRequestUri({ coin, to: TO, amountMicros })).toThrow(/not a coin/);
  });
});

describe('coinLabel', () => {
  it('names the token and the network plainly', () => {
    expect(coinLabel('polygon_usdc')).toEqual({ token: 'USDC', network: 'Polygon' });
    expect(coinLabel('ethereum_usdc')).toEqual({ token: 'USDC', network: 'Ethereum' });
    expect(coinLabel('base_usdc')).toEqual({ token: 'USDC', network: 'Base' });
    expect(() => coinLabel('polygon_usdt')).toThrow(/not a coin/);
  });
});

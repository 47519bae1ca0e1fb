import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config.ts';
import { StartupError } from '../../src/core/errors.ts';

// The processor's networks from the environment: configured only with an RPC URL, native
// defaults, overrides, and every invalid value refused at start with its variable named.

const networks = (env: Record<string, string>) => loadConfig({ DATABASE_URL: 'postgres://x/y', ...env }).networks;

describe('networks', () => {
  it('none without an RPC URL, whatever else is set', () => {
    expect(networks({ POLYGON_CONFIRMATIONS: '64', BASE_USDC: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913' })).toEqual([]);
  });

  it('the native defaults: chain id, the finalized block, the tokens (lowercase)', () => {
    expect(networks({ POLYGON_RPC_URL: 'https://a.example/rpc, https://b.example/rpc', ETHEREUM_RPC_URL: 'https://eth.example' })).toEqual([
      {
        name: 'polygon', rpcUrls: ['https://a.example/rpc', 'https://b.example/rpc'], chainId: 137, confirmations: undefined,
        tokens: [
          { coin: 'polygon_usdc', address: '0x3c499c542cef5e3811e1192ce70d8cc03d5c3359' },
          { coin: 'polygon_usdt', address: '0xc2132d05d31c914a87c6611c10748aeb04b58e8f' },
        ],
        multicall: '0xca11bde05977b3631167028862be2a173976ca11',
      },
      {
        name: 'ethereum', rpcUrls: ['https://eth.example'], chainId: 1, confirmations: undefined, tokens: [{ coin: 'ethereum_usdc', address: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48' }],
        multicall: '0xca11bde05977b3631167028862be2a173976ca11',
      },
    ]);
  });

  it('overrides: chain id, a confirmation depth, a token contract, the batch contract', () => {
    const [base] = networks({
      BASE_RPC_URL: 'http://127.0.0.1:8545', BASE_CHAIN_ID: '31337', BASE_CONFIRMATIONS: '3', BASE_USDC: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
      BASE_MULTICALL: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
    });
    expect(base).toEqual({
      name: 'base', rpcUrls: ['http://127.0.0.1:8545'], chainId: 31337, confirmations: 3, tokens: [{ coin: 'base_usdc', address: '0x5fbdb2315678afecb367f032d93f642f64180aa3' }],
      multicall: '0xe7f1725e7734ce288f8367e1bb143e90bb3f0512',
    });
  });

  it.each([
    [{ POLYGON_RPC_URL: 'wss://node.example' }, 'POLYGON_RPC_URL: each URL must be http:// or https://'],
    [{ POLYGON_RPC_URL: ' , ' }, 'POLYGON_RPC_URL: at least one http(s) URL'],
    [{ BASE_RPC_URL: 'https://b.example', BASE_CHAIN_ID: 'base' }, 'BASE_CHAIN_ID:'],
    [{ BASE_RPC_URL: 'https://b.example', BASE_CONFIRMATIONS: '-1' }, 'BASE_CONFIRMATIONS:'],
    [{ POLYGON_USDT: '0x1234' }, 'POLYGON_USDT: a 0x address of 40 hex digits'],
    [{ ETHEREUM_USDC: '0xa0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48' }, 'ETHEREUM_USDC: its letter case fails the EIP-55 checksum'],
    [{ POLYGON_RPC_URL: 'https://p.example', POLYGON_MULTICALL: 'multicall' }, 'POLYGON_MULTICALL: a 0x address of 40 hex digits'],
  ])('refuses %j at start', (env, message) => {
    expect(() => networks(env)).toThrow(StartupError);
    expect(() => networks(env)).toThrow(message);
  });
});

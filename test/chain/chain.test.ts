import { randomBytes } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import {
  createPublicClient,
  domainSeparator,
  http,
  parseSignature,
  toHex,
  type Address,
  type Hex,
  type PrivateKeyAccount,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DepositAddresses } from '../../src/core/deposit-addresses.ts';
import { startChain, type TestChain } from '../support/chain.ts';
import { eip3009Abi, testTokenAbi } from '../support/chain-contracts.ts';
import { deployTestTokens, transferWithAuthorizationTypes, usdcDomain, type TestTokens } from '../support/chain-tokens.ts';
import { startRpcProxy, type RpcProxy } from '../support/rpc-proxy.ts';

// The ground every chain test stands on, proved with viem against a real EDR node posing as Polygon:
// the tokens, EIP-3009 forwarding by a deposit key with gas paid by another account, the blacklist,
// reorganisations, and each fault of the RPC proxy as a client sees it.

const USDC = (dollars: number) => BigInt(dollars) * 1_000_000n;

let chain: TestChain;
let tokens: TestTokens;
let proxy: RpcProxy;

beforeAll(async () => {
  chain = await startChain({ chainId: 137 });
  [tokens, proxy] = await Promise.all([deployTestTokens(chain), startRpcProxy(chain.url, { hangLimitMs: 5_000 })]);
});

afterAll(async () => {
  await proxy?.stop();
  await chain?.stop();
});

/** A deposit key as the processor holds it: child `index` of m/44'/60'/0'/0 of a seed. */
function depositKey(seed: Uint8Array, index: number): { account: PrivateKeyAccount; xpub: string } {
  const root = HDKey.fromMasterSeed(seed).derive("m/44'/60'/0'/0");
  const child = root.deriveChild(index);
  if (!child.privateKey) throw new Error('no private key');
  return { account: privateKeyToAccount(toHex(child.privateKey)), xpub: root.publicExtendedKey };
}

async function signTransfer(from: PrivateKeyAccount, to: Address, value: bigint, nonce: Hex) {
  const message = { from: from.address, to, value, validAfter: 0n, validBefore: 2n ** 48n, nonce };
  const signature = await from.signTypedData({
    domain: usdcDomain(chain, tokens),
    types: transferWithAuthorizationTypes,
    primaryType: 'TransferWithAuthorization',
    message,
  });
  const { v, r, s } = parseSignature(signature);
  return [message.from, to, value, message.validAfter, message.validBefore, nonce, Number(v), r, s] as const;
}

describe('the node', () => {
  it('poses as the chain asked for, holds transactions until a block is mined, and calls its head final', async () => {
    expect(await chain.client.getChainId()).toBe(137);
    const before = await chain.head();
    const hash = await chain.wallet(chain.accounts.buyer).sendTransaction({ to: chain.accounts.gasWallet.address, value: 1n });
    expect(await chain.head()).toBe(before);
    expect((await chain.confirm(hash)).blockNumber).toBe(before + 1n);
    expect(await chain.mine(100)).toBe(before + 101n);
    const [latest, finalized] = await Promise.all(['latest', 'finalized'].map((blockTag) =>
      chain.client.getBlock({ blockTag: blockTag as 'latest' | 'finalized' })));
    expect(finalized?.hash).toBe(latest?.hash);
  });
});

describe('the test tokens', () => {
  it('are six-decimal ERC-20s, the USDC one under FiatTokenV2\'s EIP-712 domain', async () => {
    const read = (token: 'usdc' | 'usdt', functionName: 'name' | 'symbol' | 'decimals') =>
      chain.client.readContract({ address: tokens.address[token], abi: testTokenAbi, functionName });
    expect(await Promise.all([read('usdc', 'name'), read('usdc', 'symbol'), read('usdc', 'decimals')])).toEqual(['USD Coin', 'USDC', 6]);
    expect(await Promise.all([read('usdt', 'symbol'), read('usdt', 'decimals')])).toEqual(['USDT', 6]);
    const separator = await chain.client.readContract({ address: tokens.address.usdc, abi: eip3009Abi, functionName: 'DOMAIN_SEPARATOR' });
    expect(separator).toBe(domainSeparator({ domain: usdcDomain(chain, tokens) }));
  });

  it.each(['usdc', 'usdt'] as const)('%s: minted, transferred, and the Transfer found by eth_getLogs', async (token) => {
    const recipient = (await chain.newAccount()).address;
    await tokens.mint(token, chain.accounts.buyer.address, USDC(100));
    const receipt = await tokens.transfer(token, chain.accounts.buyer, recipient, USDC(30));
    expect(await tokens.balanceOf(token, recipient)).toBe(USDC(30));
    const logs = await chain.client.getContractEvents({
      address: tokens.address[token],
      abi: testTokenAbi,
      eventName: 'Transfer',
      args: { to: recipient },
      fromBlock: receipt.blockNumber,
      toBlock: receipt.blockNumber,
    });
    expect(logs.map((log) => [log.args.from, log.args.value, log.transactionHash])).toEqual([
      [chain.accounts.buyer.address, USDC(30), receipt.transactionHash],
    ]);
  });
});

describe('EIP-3009', () => {
  it('moves a deposit by the deposit key\'s signature, the gas wallet paying the gas, once', async () => {
    const seed = randomBytes(32);
    const { account: deposit, xpub } = depositKey(seed, 7);
    // The key the processor will hold controls the address the service shows the buyer.
    expect(deposit.address).toBe(new DepositAddresses(xpub).address(7));
    const payout = (await chain.newAccount()).address;
    await tokens.transfer('usdc', chain.accounts.buyer, deposit.address, USDC(30));
    await tokens.mint('usdc', chain.accounts.buyer.address, USDC(30));

    const nonce = toHex(randomBytes(32));
    const args = await signTransfer(deposit, payout, USDC(30), nonce);
    const gasWallet = chain.wallet(chain.accounts.gasWallet);
    const usdc = { address: tokens.address.usdc, abi: eip3009Abi } as const;
    const receipt = await chain.confirm(await gasWallet.writeContract({ ...usdc, functionName: 'transferWithAuthorization', args }));

    expect(receipt.from).toBe(chain.accounts.gasWallet.address.toLowerCase());
    expect(await tokens.balanceOf('usdc', payout)).toBe(USDC(30));
    expect(await tokens.balanceOf('usdc', deposit.address)).toBe(0n);
    expect(await chain.client.getBalance({ address: deposit.address })).toBe(0n);
    expect(await tokens.authorizationState(deposit.address, nonce)).toBe(true);
    const used = await chain.client.getContractEvents({ ...usdc, eventName: 'AuthorizationUsed', blockHash: receipt.blockHash });
    expect(used.map((log) => log.args)).toEqual([{ authorizer: deposit.address, nonce }]);

    // The same authorization again: refused before it is mined, whatever the balance.
    await tokens.transfer('usdc', chain.accounts.buyer, deposit.address, USDC(30));
    await expect(gasWallet.writeContract({ ...usdc, functionName: 'transferWithAuthorization', args }))
      .rejects.toThrow('FiatTokenV2: authorization is used or canceled');
  });

  it('refuses a blacklisted payout wallet, leaving the authorization unused', async () => {
    const { account: deposit } = depositKey(randomBytes(32), 0);
    const refused = (await chain.newAccount()).address;
    await tokens.transfer('usdc', chain.accounts.buyer, deposit.address, USDC(10));
    await tokens.refuse('usdc', refused);
    await tokens.refuse('usdt', refused);

    const nonce = toHex(randomBytes(32));
    const args = await signTransfer(deposit, refused, USDC(10), nonce);
    await expect(chain.wallet(chain.accounts.gasWallet).writeContract({
      address: tokens.address.usdc, abi: eip3009Abi, functionName: 'transferWithAuthorization', args,
    })).rejects.toThrow('Blacklistable: account is blacklisted');
    expect(await tokens.authorizationState(deposit.address, nonce)).toBe(false);
    await tokens.mint('usdt', chain.accounts.buyer.address, USDC(10));
    await expect(tokens.transfer('usdt', chain.accounts.buyer, refused, USDC(10))).rejects.toThrow('Blacklistable: account is blacklisted');
  });
});

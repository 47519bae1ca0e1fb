import { randomBytes } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import {
  createPublicClient,
  domainSeparator,
  encodeFunctionData,
  http,
  LimitExceededRpcError,
  parseSignature,
  TimeoutError,
  toHex,
  type Address,
  type Hex,
  type PrivateKeyAccount,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
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

async function signTransfer(
  from: PrivateKeyAccount,
  to: Address,
  value: bigint,
  nonce: Hex,
  { signer = from, validBefore = 2n ** 48n } = {},
) {
  const message = { from: from.address, to, value, validAfter: 0n, validBefore, nonce };
  const signature = await signer.signTypedData({
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

  it('refuses, as FiatTokenV2 does, a signature by another key and an expired authorization', async () => {
    const { account: deposit } = depositKey(randomBytes(32), 1);
    const payout = (await chain.newAccount()).address;
    await tokens.transfer('usdc', chain.accounts.buyer, deposit.address, USDC(10));
    const submit = async (args: Awaited<ReturnType<typeof signTransfer>>) =>
      chain.wallet(chain.accounts.gasWallet).writeContract({
        address: tokens.address.usdc, abi: eip3009Abi, functionName: 'transferWithAuthorization', args,
      });
    const nonce = toHex(randomBytes(32));
    await expect(submit(await signTransfer(deposit, payout, USDC(10), nonce, { signer: chain.accounts.buyer })))
      .rejects.toThrow('FiatTokenV2: invalid signature');
    await expect(submit(await signTransfer(deposit, payout, USDC(10), nonce, { validBefore: 1n })))
      .rejects.toThrow('FiatTokenV2: authorization is expired');
    expect(await tokens.authorizationState(deposit.address, nonce)).toBe(false);
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

describe('reorganisations', () => {
  it('replace the blocks after a fork point: the transfer is gone, its block has another hash', async () => {
    const deposit = (await chain.newAccount()).address;
    const point = await chain.forkPoint();
    const receipt = await tokens.transfer('usdc', chain.accounts.buyer, deposit, USDC(5));
    await chain.mine(2);
    expect(receipt.blockNumber).toBe(point.height + 1n);

    await chain.reorganise(point);
    const replaced = await chain.client.getBlock({ blockNumber: receipt.blockNumber });
    expect(replaced.hash).not.toBe(receipt.blockHash);
    expect(replaced.transactions).toEqual([]);
    expect(await chain.head()).toBe(point.height + 3n);
    await expect(chain.client.getTransactionReceipt({ hash: receipt.transactionHash })).rejects.toThrow(/could not be found/);
    const logs = await chain.client.getContractEvents({
      address: tokens.address.usdc, abi: testTokenAbi, eventName: 'Transfer', args: { to: deposit }, fromBlock: point.height,
    });
    expect(logs).toEqual([]);
    expect(await tokens.balanceOf('usdc', deposit)).toBe(0n);
    // Nothing of the old branch waits to be mined again.
    await chain.mine(1);
    expect(await tokens.balanceOf('usdc', deposit)).toBe(0n);
  });

  it('can move a transaction to another block: the same signed transaction sent again in the new branch', async () => {
    const deposit = (await chain.newAccount()).address;
    const buyer = chain.wallet(chain.accounts.buyer);
    const request = await buyer.prepareTransactionRequest({
      to: tokens.address.usdc,
      data: encodeFunctionData({ abi: testTokenAbi, functionName: 'transfer', args: [deposit, USDC(5)] }),
    });
    const signed = await buyer.signTransaction(request);
    const point = await chain.forkPoint();
    const first = await chain.confirm(await chain.client.sendRawTransaction({ serializedTransaction: signed }));

    await chain.reorganise(point, {
      blocks: 3,
      replace: async () => {
        await chain.mine(1);
        await chain.client.sendRawTransaction({ serializedTransaction: signed });
      },
    });
    const moved = await chain.client.getTransactionReceipt({ hash: first.transactionHash });
    expect(moved.blockNumber).toBe(point.height + 2n);
    expect(moved.blockHash).not.toBe(first.blockHash);
    expect(await chain.head()).toBe(point.height + 3n);
    expect(await tokens.balanceOf('usdc', deposit)).toBe(USDC(5));
  });
});

describe('the RPC proxy', () => {
  const through = (options: { retryCount?: number; timeout?: number } = {}) =>
    createPublicClient({ chain: chain.chain, transport: http(proxy.url, { retryCount: 0, retryDelay: 10, ...options }) });
  const transfersTo = (to: Address, fromBlock: bigint, toBlock?: bigint) =>
    through().getContractEvents({ address: tokens.address.usdc, abi: testTokenAbi, eventName: 'Transfer', args: { to }, fromBlock, toBlock });

  afterEach(() => proxy.set({}));

  it('lies by omission about logs near the head', async () => {
    const deposit = (await chain.newAccount()).address;
    const { blockNumber } = await tokens.transfer('usdc', chain.accounts.buyer, deposit, USDC(1));
    proxy.set({ dropLogsNearHead: 2 });
    expect(await transfersTo(deposit, blockNumber)).toEqual([]);
    await chain.mine(1);
    expect(await transfersTo(deposit, blockNumber)).toEqual([]);
    await chain.mine(1);
    expect(await transfersTo(deposit, blockNumber)).toHaveLength(1);
  });

  it('refuses a log range wider than its limit, as Infura does', async () => {
    const head = await chain.head();
    proxy.set({ maxLogRange: 10 });
    const refused = transfersTo(chain.accounts.buyer.address, head - 10n, head);
    await expect(refused).rejects.toBeInstanceOf(LimitExceededRpcError);
    await expect(refused).rejects.toThrow('query returned more than 10000 results');
    await expect(transfersTo(chain.accounts.buyer.address, head - 9n, head)).resolves.toBeInstanceOf(Array);
  });

  it('answers 429 to the next requests, which a client retrying gets past', async () => {
    proxy.set({ tooManyRequests: 1 });
    await expect(through().getBlockNumber()).rejects.toMatchObject({ name: 'HttpRequestError', status: 429 });
    const before = proxy.calls('eth_blockNumber');
    proxy.set({ tooManyRequests: 2 });
    expect(await through({ retryCount: 3 }).getBlockNumber()).toBe(await chain.head());
    expect(proxy.calls('eth_blockNumber') - before).toBe(3);
  });

  it('hangs until the client gives up, then answers again', async () => {
    proxy.set({ hang: 1, only: ['eth_getLogs'] });
    // Other methods pass while a log query hangs.
    expect(await through({ timeout: 200 }).getBlockNumber()).toBe(await chain.head());
    const started = performance.now();
    await expect(through({ timeout: 200 }).getLogs({ fromBlock: 0n })).rejects.toBeInstanceOf(TimeoutError);
    expect(performance.now() - started).toBeLessThan(2_000);
    await expect(through({ timeout: 200 }).getLogs({ fromBlock: 0n })).resolves.toBeInstanceOf(Array);
  });
});

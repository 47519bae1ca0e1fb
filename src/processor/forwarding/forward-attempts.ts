import { encodeFunctionData, formatUnits, type Address, type Hex, type TransactionReceipt } from 'viem';
import { MULTICALL3 } from '../../core/networks-config.ts';
import type { Db } from '../../db/database.ts';
import type { ForwardShare } from '../../db/schema.ts';
import { authorizationNonce, signedTransfer, tokenDomain, UnknownDomain } from './authorizations.ts';
import { isRevert, multicallAbi, revertReason, tokenAbi, type ForwardChain } from '../chain/forward-chain.ts';
import type { ForwardRow } from './forward-plans.ts';
import type { ForwardTransactionRow, TransactionToSign } from './forward-transactions.ts';
import type { ProcessorKeys } from '../chain/keys.ts';
import type { StoredMovement } from '../../db/schema.ts';
import { IneffectiveTransaction, verifyTransfers } from './movements.ts';

// What one attempt at a forward sends, decided before anything is signed: every call is first run
// against the chain (eth_call), so a payout wallet the token refuses or an empty gas wallet fails
// the forward with the reason in words, with no nonce spent and nothing broadcast.

/** A step that cannot happen for a reason the operator must see: the forward fails and is tried again later. */
export class CannotForward extends Error {}

/** A revert becomes the forward's failure, in words; a node that did not answer is only waited for. */
function refused(words: string) {
  return (error: unknown): never => {
    throw isRevert(error) ? new CannotForward(`${words}: ${revertReason(error)}`) : error;
  };
}

export interface AttemptDeps {
  db: Db;
  chain: ForwardChain;
  keys: ProcessorKeys;
}

export interface Share {
  share: ForwardShare;
  to: Address;
  value: bigint;
}

/** Prices a transfer from a deposit address this much above the node's gas price, so it is not left behind. */
export const DEPOSIT_PRICE_PERCENT = 125n;
/** Estimates are raised by this much for a batch, whose gas the token's state can change a little. */
const GAS_MARGIN_PERCENT = 120n;

/** The shares a forward moves (a zero share is not sent). */
export function sharesOf(forward: ForwardRow): Share[] {
  const shares: Share[] = [];
  if (BigInt(forward.net) > 0n) shares.push({ share: 'net', to: forward.payout_wallet as Address, value: BigInt(forward.net) });
  if (BigInt(forward.fee) > 0n) shares.push({ share: 'fee', to: forward.fee_wallet as Address, value: BigInt(forward.fee) });
  return shares;
}

export async function requireGas(deps: AttemptDeps, cost: bigint): Promise<void> {
  const wallet = deps.keys.gasWallet.address;
  const balance = await deps.chain.balance(wallet);
  if (balance < cost) {
    throw new CannotForward(`the gas wallet ${wallet.toLowerCase()} holds ${formatUnits(balance, 18)} of ${deps.chain.network.name}'s native coin and this forward needs up to ${formatUnits(cost, 18)}: fund it`);
  }
}

/** Whether a mined transaction's block is final by the network's rule (as detection's) and still on the chain. */
export async function isFinalReceipt(chain: ForwardChain, receipt: TransactionReceipt): Promise<boolean> {
  const final = await chain.finalBlock();
  if (receipt.blockNumber > final.number) return false;
  const block = await chain.block(receipt.blockNumber);
  return block.hash === receipt.blockHash.toLowerCase();
}

/** What an attempt sends, and the shares a transaction not ours moved already (its receipt verified). */
export type Attempt = { transactions: TransactionToSign[]; movedElsewhere: Partial<Record<ForwardShare, StoredMovement>> };

/** The transactions that move the shares left. */
export function attemptFor(deps: AttemptDeps, forward: ForwardRow, left: Share[]): Promise<Attempt> {
  return forward.method === 'authorization' ? authorizationBatch(deps, forward, left) : topUpAndShares(deps, forward, left);
}

/** EIP-3009: one gas wallet transaction through the batch contract carrying each share's authorization. */
async function authorizationBatch(deps: AttemptDeps, forward: ForwardRow, left: Share[]): Promise<Attempt> {
  const { chain, keys } = deps;
  const token = forward.token as Address;
  const deposit = keys.deposit(forward.deposit_index);
  const calls: Array<{ share: ForwardShare; data: Hex }> = [];
  const movedElsewhere: Partial<Record<ForwardShare, StoredMovement>> = {};
  const domain = await tokenDomain(chain, token).catch((error: unknown) => {
    throw error instanceof UnknownDomain ? new CannotForward(error.message) : error;
  });
  for (const share of left) {
    const nonce = authorizationNonce(forward, share.share);
    // Used already: by a transaction of ours the rows lost track of, or by anyone who submitted
    // the signed authorization (it can only pay this share's wallet). Never signed again.
    if (await chain.authorizationUsed(token, deposit.address, nonce)) {
      const transfer = await deps.db.selectFrom('processor.transfers').select('block_number').where('network', '=', forward.network)
        .where('tx_hash', '=', forward.transfer_tx_hash).where('log_index', '=', forward.transfer_log_index).executeTakeFirstOrThrow();
      const hash = await chain.authorizationUse(token, deposit.address, nonce, BigInt(transfer.block_number));
      const receipt = hash && await chain.receipt(hash);
      if (receipt && await isFinalReceipt(chain, receipt)) {
        try {
          [movedElsewhere[share.share]] = verifyTransfers(receipt, [{ kind: share.share, token, from: deposit.address, to: share.to, value: share.value }]);
        } catch (error) {
          if (error instanceof IneffectiveTransaction) throw new CannotForward(`the ${share.share} share's authorization was used, but not as signed: ${error.message}`);
          throw error;
        }
      }
      continue;
    }
    const data = await signedTransfer(deposit, domain, { ...share, nonce });
    await chain.simulate({ from: keys.gasWallet.address, to: token, data }).catch(refused(`the token refuses the ${share.share} share to ${share.to}`));
    calls.push({ share: share.share, data });
  }
  if (calls.length === 0) return { transactions: [], movedElsewhere };
  const multicall = (chain.network.multicall ?? MULTICALL3) as Address;
  const data = encodeFunctionData({
    abi: multicallAbi, functionName: 'aggregate3',
    args: [calls.map((call) => ({ target: token, allowFailure: false, callData: call.data }))],
  });
  const gas = (await chain.estimateGas({ from: keys.gasWallet.address, to: multicall, data })
    .catch(refused(`the batch contract ${multicall} refuses the forward`))) * GAS_MARGIN_PERCENT / 100n;
  const fees = await chain.fees();
  await requireGas(deps, gas * fees.maxFeePerGas);
  return {
    transactions: [{ purpose: 'batch', shares: calls.map((call) => call.share), signer: keys.gasWallet, senderKind: 'gas_wallet', to: multicall, data, value: 0n, gas, fees: { type: 'eip1559', ...fees } }],
    movedElsewhere,
  };
}

/**
 * A token without EIP-3009: the deposit address sends each share itself, so the gas wallet first
 * sends it exactly the gas those transfers cost (gas limit × a legacy gas price, less what it
 * holds). What stays is the gas the limits held back and the transfers did not use.
 */
async function topUpAndShares(deps: AttemptDeps, forward: ForwardRow, left: Share[]): Promise<Attempt> {
  const { chain, keys } = deps;
  const token = forward.token as Address;
  const deposit = keys.deposit(forward.deposit_index);
  const gasPrice = (await chain.gasPrice()) * DEPOSIT_PRICE_PERCENT / 100n;
  const shares: TransactionToSign[] = [];
  for (const share of left) {
    const data = encodeFunctionData({ abi: tokenAbi, functionName: 'transfer', args: [share.to, share.value] });
    const gas = await chain.estimateGas({ from: deposit.address, to: token, data }).catch(refused(`the token refuses the ${share.share} share to ${share.to}`));
    shares.push({ purpose: 'share', shares: [share.share], signer: deposit, senderKind: 'deposit', to: token, data, value: 0n, gas, fees: { type: 'legacy', gasPrice } });
  }
  const needed = shares.reduce((sum, tx) => sum + tx.gas * gasPrice, 0n);
  const held = await chain.balance(deposit.address);
  if (needed <= held) return { transactions: shares, movedElsewhere: {} };
  const fees = await chain.fees();
  const topUp = needed - held;
  await requireGas(deps, 21_000n * fees.maxFeePerGas + topUp);
  return {
    transactions: [
      { purpose: 'top_up', shares: [], signer: keys.gasWallet, senderKind: 'gas_wallet', to: deposit.address, data: '0x', value: topUp, gas: 21_000n, fees: { type: 'eip1559', ...fees } },
      ...shares,
    ],
    movedElsewhere: {},
  };
}

/** Why a mined transaction reverted, in the token's words when its calls still revert now. */
export async function explainRevert(deps: AttemptDeps, forward: ForwardRow, tx: ForwardTransactionRow): Promise<string> {
  const { chain, keys } = deps;
  let refusedShare: Share | undefined;
  try {
    if (tx.purpose === 'batch') {
      const domain = await tokenDomain(chain, forward.token as Address);
      for (const share of sharesOf(forward).filter(({ share }) => tx.shares.includes(share))) {
        refusedShare = share;
        const data = await signedTransfer(keys.deposit(forward.deposit_index), domain, { ...share, nonce: authorizationNonce(forward, share.share) });
        await chain.simulate({ from: keys.gasWallet.address, to: forward.token as Address, data });
      }
    } else {
      refusedShare = sharesOf(forward).find(({ share }) => tx.shares.includes(share));
      await chain.simulate({ from: tx.sender as Address, to: tx.to_address as Address, data: tx.data as Hex, value: BigInt(tx.value) });
    }
  } catch (error) {
    if (isRevert(error)) {
      const whose = refusedShare ? `the token refuses the ${refusedShare.share} share to ${refusedShare.to}: ` : '';
      return `${tx.tx_hash} reverted: ${whose}${revertReason(error)}`;
    }
  }
  return `${tx.tx_hash} reverted`;
}

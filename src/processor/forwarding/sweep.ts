import type { Selectable } from 'kysely';
import { encodeFunctionData, formatUnits, parseAbi, type Address, type Hex, type TransactionReceipt } from 'viem';
import type { Clock } from '../../core/clock.ts';
import { ApiError } from '../../core/errors.ts';
import type { NetworkConfig } from '../../core/networks-config.ts';
import type { Db } from '../../db/database.ts';
import type { ProcessorSweepsTable } from '../../db/schema.ts';
import { DEPOSIT_PRICE_PERCENT, isFinalReceipt } from './forward-attempts.ts';
import { isRevert, revertReason, tokenAbi, type ForwardChain } from '../chain/forward-chain.ts';
import { sign, takeNonce } from './forward-transactions.ts';
import type { ProcessorKeys } from '../chain/keys.ts';
import { TRANSFER_EVENT } from '../chain/chain-client.ts';
import { publicText } from '../../core/public-text.ts';
import { IneffectiveTransaction, verifyTopUp, verifyTransfers } from './movements.ts';
import type { StoredMovement } from '../../db/schema.ts';
import { enqueueNotice } from '../notices/outbox.ts';
import { settlementMovements } from '../notices/settlement.ts';

// `processor sweep` (issue 22, must have 6): a stray token moved from a watched deposit address to
// the payment's payout wallet (`merchant`) or PROCESSOR_FEE_WALLET (`operator`), through
// forwarding's top-up path: the gas wallet sends the deposit address the exact gas, then the
// deposit address sends transfer(to, amount). The sweep is a row before anything is signed, its
// transactions are stored (raw and hash, nonces from processor.sender_nonces) before broadcast.
//
// What it may move, so it never takes what forwarding will move:
// - nothing while a forward of that address and token is not final or canceled (planned,
//   sending, failed), or a final deposit of that token to an address with a payout wallet has no
//   forward yet (forwarding plans it): those are forwarding's;
// - of a token the network is configured with, not what arrived after the last block detection
//   scanned (the cursor): such a deposit is recorded and forwarded in a later pass; it is held back;
// - of any other token (detection never reads its logs, forwarding never moves it), the balance.
// The amount is fixed when the sweep is written: a deposit arriving afterwards stays.

export type SweepRow = Selectable<ProcessorSweepsTable>;
export type SweepDestination = 'merchant' | 'operator';

const metadataAbi = parseAbi(['function symbol() view returns (string)', 'function decimals() view returns (uint8)']);
/** A configured token is swept only when detection's cursor is at most this many blocks behind. */
const MAX_UNSCANNED_BLOCKS = 50_000n;
const LOG_RANGE = 2_000n;
const TOP_UP_GAS = 21_000n;

export interface SweepDeps {
  db: Db;
  clock: Clock;
  network: NetworkConfig;
  chain: ForwardChain;
  keys: ProcessorKeys;
  /** PROCESSOR_FEE_WALLET, lowercase. */
  feeWallet: `0x${string}` | undefined;
  log: (line: string) => void;
}

export interface SweepRequest {
  address: string;
  token: string;
  to: SweepDestination;
}

export interface SweepPlan {
  network: string;
  depositAddress: Address;
  depositIndex: number;
  paymentId: string;
  token: Address;
  configured: boolean;
  symbol: string | null;
  decimals: number | null;
  /** balanceOf at the latest block. */
  block: bigint;
  balance: bigint;
  /** Of a configured token: what arrived after detection's last scanned block (forwarding's). */
  heldBack: bigint;
  amount: bigint;
  destination: SweepDestination;
  to: Address;
  gas: bigint;
  gasPrice: bigint;
  /** What the gas wallet sends the deposit address (gas × price less what it holds). */
  topUp: bigint;
  /** Wei the sweep costs: the top-up's gas at most, and the transfer's. */
  costEstimate: bigint;
  gasWallet: Address;
}

const refuse = (message: string, code: 'invalid_state' | 'not_found' | 'no_payout_wallet' = 'invalid_state') => new ApiError(code, message);

function lower(value: string): Address {
  return value.toLowerCase() as Address;
}

/** What the sweep would do, read from the database and the chain; refused when it may not happen. */
export async function planSweep(deps: SweepDeps, request: SweepRequest): Promise<SweepPlan> {
  const { db, network, chain, keys } = deps;
  const address = lower(request.address);
  const token = lower(request.token);
  if (!/^0x[0-9a-f]{40}$/.test(address)) throw refuse(`--address ${request.address} is not an address.`);
  if (!/^0x[0-9a-f]{40}$/.test(token)) throw refuse(`--token ${request.token} is not a token contract's address.`);
  const watched = await db.selectFrom('processor.watched_addresses').selectAll().where('address', '=', address).executeTakeFirst();
  if (!watched) throw refuse(`${address} is not a deposit address the processor watches.`, 'not_found');
  if (watched.deposit_index === null || keys.deposit(watched.deposit_index).address.toLowerCase() !== address) {
    throw refuse(`${address} is not derived from the processor's seed (its child index is not known yet: start the processor once).`);
  }
  let to: Address;
  if (request.to === 'merchant') {
    if (!watched.payout_wallet) throw refuse(`The payment ${watched.payment_id} of ${address} has no payout wallet to sweep to.`, 'no_payout_wallet');
    to = lower(watched.payout_wallet);
  } else {
    if (!deps.feeWallet) throw refuse('PROCESSOR_FEE_WALLET is not set: there is no operator wallet to sweep to.');
    to = lower(deps.feeWallet);
  }

  // Forwarding's: a forward of this token from this address not done yet, or a deposit it will plan.
  const open = await db.selectFrom('processor.forwards').select(['id', 'state', 'failure']).where('network', '=', network.name)
    .where('deposit_address', '=', address).where('token', '=', token).where('state', 'in', ['planned', 'sending', 'failed']).executeTakeFirst();
  if (open) {
    throw refuse(`Forward ${open.id} of this token from ${address} is ${open.state}${open.failure ? ` (${open.failure})` : ''}: forwarding moves that balance; retry or wait for it, not a sweep.`);
  }
  if (watched.payout_wallet !== null) {
    const unplanned = await db.selectFrom('processor.transfers as t')
      .leftJoin('processor.forwards as f', (join) => join.onRef('f.network', '=', 't.network').onRef('f.transfer_tx_hash', '=', 't.tx_hash').onRef('f.transfer_log_index', '=', 't.log_index'))
      .select('t.tx_hash').where('t.network', '=', network.name).where('t.to_address', '=', address).where('t.token', '=', token)
      .where('t.status', '=', 'final').where('f.id', 'is', null).executeTakeFirst();
    if (unplanned) throw refuse(`The deposit ${unplanned.tx_hash} of this token to ${address} is final and not forwarded yet: forwarding moves it, not a sweep.`);
  }

  const latest = await chain.client.getBlockNumber({ cacheTime: 0 });
  const balance = await chain.client.readContract({ address: token, abi: tokenAbi, functionName: 'balanceOf', args: [address], blockNumber: latest })
    .catch((error: unknown) => {
      throw refuse(`${token} does not answer balanceOf on ${network.name}: ${revertReason(error)}`);
    });
  const configured = network.tokens.some((candidate) => candidate.address.toLowerCase() === token);
  let heldBack = 0n;
  if (configured) {
    const cursor = await db.selectFrom('processor.cursors').select('next_block').where('network', '=', network.name).executeTakeFirst();
    if (!cursor) throw refuse(`Detection has not scanned ${network.name} yet: a deposit of this configured token may still be forwarding's.`);
    const first = BigInt(cursor.next_block);
    if (latest - first > MAX_UNSCANNED_BLOCKS) {
      throw refuse(`Detection on ${network.name} is ${latest - first} blocks behind: a configured token is swept once it caught up.`);
    }
    for (let from = first; from <= latest; from += LOG_RANGE) {
      const until = from + LOG_RANGE - 1n < latest ? from + LOG_RANGE - 1n : latest;
      const logs = await chain.client.getLogs({ address: token, event: TRANSFER_EVENT, args: { to: address }, fromBlock: from, toBlock: until, strict: true });
      heldBack += logs.reduce((sum, log) => sum + log.args.value, 0n);
    }
  }
  const amount = balance > heldBack ? balance - heldBack : 0n;
  if (balance === 0n) throw refuse(`${address} holds none of ${token} on ${network.name}: nothing to sweep.`);
  if (amount === 0n) throw refuse(`All of ${address}'s ${token} arrived after detection's last scanned block: forwarding handles it, nothing to sweep.`);

  const [symbol, decimals] = await Promise.all([
    chain.client.readContract({ address: token, abi: metadataAbi, functionName: 'symbol' }).catch(() => null),
    chain.client.readContract({ address: token, abi: metadataAbi, functionName: 'decimals' }).catch(() => null),
  ]);
  const data = encodeFunctionData({ abi: tokenAbi, functionName: 'transfer', args: [to, amount] });
  const gas = await chain.estimateGas({ from: address, to: token, data }).catch((error: unknown) => {
    if (isRevert(error)) throw refuse(`The token refuses the transfer of ${amount} from ${address} to ${to}: ${revertReason(error)}`);
    throw error;
  });
  const gasPrice = (await chain.gasPrice()) * DEPOSIT_PRICE_PERCENT / 100n;
  const held = await chain.balance(address);
  const needed = gas * gasPrice;
  const topUp = needed > held ? needed - held : 0n;
  const fees = topUp > 0n ? await chain.fees() : undefined;
  return {
    network: network.name, depositAddress: address, depositIndex: watched.deposit_index, paymentId: watched.payment_id, token, configured,
    symbol: typeof symbol === 'string' ? symbol : null, decimals: typeof decimals === 'number' ? decimals : null,
    block: latest, balance, heldBack, amount, destination: request.to, to, gas, gasPrice, topUp,
    costEstimate: needed + (fees ? TOP_UP_GAS * fees.maxFeePerGas : 0n), gasWallet: keys.gasWallet.address,
  };
}

export interface SweepOutcome {
  sweep: SweepRow;
  plan: SweepPlan | undefined;
  /** Mined within the wait. */
  mined: boolean;
  resumed: boolean;
}

/** The open sweep of an address, if any (planned or sending). */
export function openSweep(db: Db, network: string, address: string): Promise<SweepRow | undefined> {
  return db.selectFrom('processor.sweeps').selectAll().where('network', '=', network).where('deposit_address', '=', address.toLowerCase())
    .where('state', 'in', ['planned', 'sending']).executeTakeFirst();
}

/**
 * Does it: the sweep written, then its transactions signed and stored, broadcast, and waited for
 * until mined (`waitMs`). An open sweep of the same address, token and destination (a command that
 * died, or did not see it mined) is resumed from its rows instead.
 */
export async function executeSweep(deps: SweepDeps, request: SweepRequest, options: { waitMs?: number; pollMs?: number } = {}): Promise<SweepOutcome> {
  const { db, clock, network } = deps;
  const address = lower(request.address);
  let plan: SweepPlan | undefined;
  let row = await openSweep(db, network.name, address);
  const resumed = row !== undefined;
  if (row && (row.token !== lower(request.token) || row.destination !== request.to)) {
    throw refuse(`Sweep ${row.id} of ${row.token} from ${address} to the ${row.destination} is still ${row.state}: run that sweep again to finish it first.`);
  }
  if (!row) {
    plan = await planSweep(deps, request);
    const now = clock.now();
    row = await db.insertInto('processor.sweeps').values({
      network: network.name, deposit_address: address, deposit_index: plan.depositIndex, payment_id: plan.paymentId, token: plan.token,
      amount: plan.amount, destination: plan.destination, to_address: plan.to, state: 'planned', created_at: now, updated_at: now,
    }).onConflict((oc) => oc.columns(['network', 'deposit_address']).where('state', 'in', ['planned', 'sending']).doNothing()).returningAll().executeTakeFirst();
    if (!row) throw refuse(`Another sweep of ${address} started at the same time: run the command again to follow it.`);
    deps.log(`[processor] ${network.name}: sweep ${row.id}: ${plan.amount} of ${plan.token} from ${address} to the ${plan.destination} ${plan.to}`);
  }
  if (row.state === 'planned') row = await signSweep(deps, row, plan);
  const mined = await sendSweep(deps, row, options);
  const after = await db.selectFrom('processor.sweeps').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow();
  return { sweep: after, plan, mined, resumed };
}

async function fail(deps: SweepDeps, row: SweepRow, failure: string): Promise<never> {
  const reason = publicText(failure);
  await deps.db.updateTable('processor.sweeps').set({ state: 'failed', failure: reason, updated_at: deps.clock.now() }).where('id', '=', row.id).execute();
  deps.log(`[processor] ${deps.network.name}: sweep ${row.id} failed: ${reason}`);
  throw refuse(`Sweep ${row.id} failed: ${reason}`);
}

/** Signs the top-up (if any) and the transfer, and stores both with their nonces, in one database transaction. */
async function signSweep(deps: SweepDeps, row: SweepRow, plan: SweepPlan | undefined): Promise<SweepRow> {
  const { db, clock, chain, keys, network } = deps;
  const deposit = keys.deposit(row.deposit_index);
  const token = row.token as Address;
  const amount = BigInt(row.amount);
  const data = encodeFunctionData({ abi: tokenAbi, functionName: 'transfer', args: [row.to_address as Address, amount] });
  // Every call run on the chain first: a refusal fails the sweep in words, with no nonce spent.
  const balance = await chain.tokenBalance(token, deposit.address);
  if (balance < amount) return fail(deps, row, `${row.deposit_address} holds ${balance} of ${token} now, less than the ${amount} planned`);
  let gas = plan?.gas;
  if (gas === undefined) {
    try {
      gas = await chain.estimateGas({ from: deposit.address, to: token, data });
    } catch (error) {
      if (isRevert(error)) return fail(deps, row, `the token refuses the transfer to ${row.to_address}: ${revertReason(error)}`);
      throw error;
    }
  }
  const gasPrice = plan?.gasPrice ?? (await chain.gasPrice()) * DEPOSIT_PRICE_PERCENT / 100n;
  const held = await chain.balance(deposit.address);
  const topUp = gas * gasPrice > held ? gas * gasPrice - held : 0n;
  const fees = topUp > 0n ? await chain.fees() : undefined;
  if (fees) {
    const cost = TOP_UP_GAS * fees.maxFeePerGas + topUp;
    const has = await chain.balance(keys.gasWallet.address);
    if (has < cost) return fail(deps, row, `the gas wallet ${keys.gasWallet.address.toLowerCase()} holds ${formatUnits(has, 18)} of ${network.name}'s native coin and this sweep needs up to ${formatUnits(cost, 18)}: fund it`);
  }
  const [gasWalletMined, depositMined] = await Promise.all([chain.minedNonce(keys.gasWallet.address), chain.minedNonce(deposit.address)]);
  const now = clock.now();
  const signed = await db.transaction().execute(async (trx) => {
    const locked = await trx.selectFrom('processor.sweeps').select('state').where('id', '=', row.id).forUpdate().executeTakeFirstOrThrow();
    if (locked.state !== 'planned') return undefined;
    const values: Partial<Pick<SweepRow, 'top_up_nonce' | 'top_up_value' | 'top_up_raw' | 'top_up_hash'>> = {};
    if (fees) {
      const nonce = await takeNonce(trx, { network: network.name, sender: keys.gasWallet.address.toLowerCase(), kind: 'gas_wallet', floor: gasWalletMined, now });
      const { raw, hash } = await sign(network.chainId, nonce, { signer: keys.gasWallet, to: deposit.address, data: '0x', value: topUp, gas: TOP_UP_GAS, fees: { type: 'eip1559', ...fees } });
      Object.assign(values, { top_up_nonce: nonce, top_up_value: topUp.toString(), top_up_raw: raw, top_up_hash: hash });
    }
    const nonce = await takeNonce(trx, { network: network.name, sender: deposit.address.toLowerCase(), kind: 'deposit', floor: depositMined, now });
    const { raw, hash } = await sign(network.chainId, nonce, { signer: deposit, to: token, data, value: 0n, gas, fees: { type: 'legacy', gasPrice } });
    return trx.updateTable('processor.sweeps').set({
      ...values, transfer_nonce: nonce, gas, gas_price: gasPrice.toString(), transfer_raw: raw, transfer_hash: hash, state: 'sending', updated_at: now,
    }).where('id', '=', row.id).returningAll().executeTakeFirstOrThrow();
  });
  return signed ?? db.selectFrom('processor.sweeps').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow();
}

/** Broadcasts what is stored (the top-up first, mined before the transfer goes) and waits for the transfer to be mined. */
async function sendSweep(deps: SweepDeps, row: SweepRow, options: { waitMs?: number; pollMs?: number }): Promise<boolean> {
  const { db, clock, chain, network } = deps;
  if (row.state === 'mined') return true;
  if (row.state !== 'sending' || !row.transfer_raw || !row.transfer_hash) return false;
  const deadline = Date.now() + (options.waitMs ?? 120_000);
  const pollMs = options.pollMs ?? 250;
  const minedReceipt = async (raw: string, hash: string) => {
    for (;;) {
      const receipt = await chain.receipt(hash as Hex);
      if (receipt) return receipt;
      const sent = await chain.broadcast(raw as Hex);
      if (!sent.ok && sent.refusal === 'no_funds') throw refuse(`Sweep ${row.id}: ${hash} cannot be paid for (${sent.message}); it stays stored: fund its sender and run the command again.`);
      if (!sent.ok && sent.refusal === 'nonce_used') {
        const again = await chain.receipt(hash as Hex);
        if (again) return again;
        await fail(deps, row, `the nonce of ${hash} was spent by another transaction`);
      }
      if (Date.now() > deadline) return undefined;
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  };
  // Each receipt is checked for its effect, not only its status: the native value delivered, the token's Transfer log.
  const verified = async (verify: () => Promise<StoredMovement>) => {
    try {
      return await verify();
    } catch (error) {
      if (error instanceof IneffectiveTransaction) return fail(deps, row, error.message);
      throw error;
    }
  };
  const movements: StoredMovement[] = [];
  if (row.top_up_raw && row.top_up_hash) {
    const receipt = await minedReceipt(row.top_up_raw, row.top_up_hash);
    if (!receipt) return false;
    if (receipt.status !== 'success') await fail(deps, row, `the gas top-up ${row.top_up_hash} reverted`);
    movements.push(await verified(async () => topUpShown(chain, receipt, row)));
  }
  const receipt = await minedReceipt(row.transfer_raw, row.transfer_hash);
  if (!receipt) return false;
  if (receipt.status !== 'success') await fail(deps, row, `the transfer ${row.transfer_hash} reverted`);
  movements.push(await verified(async () => verifyTransfers(receipt, [sweepTransfer(row)])[0]!));
  await db.updateTable('processor.sweeps').set({ state: 'mined', block_number: receipt.blockNumber, failure: null, movements: JSON.stringify(movements), updated_at: clock.now() })
    .where('id', '=', row.id).execute();
  deps.log(`[processor] ${network.name}: sweep ${row.id} mined in block ${receipt.blockNumber}: ${row.amount} of ${row.token} from ${row.deposit_address} to ${row.to_address}, ${row.transfer_hash}`);
  return true;
}

export type SweepReportDeps = Pick<SweepDeps, 'db' | 'clock' | 'network' | 'chain' | 'log'>;

/**
 * The books (issue 30): each mined sweep of the network, once its transfer is final, re-read from
 * its receipts (a reorganisation may have mined it again elsewhere) and reported to the service
 * (`sweep.completed`, with what the receipts showed moved), once. A sweep the chain dropped before
 * it was final goes back to `sending`: `processor sweep` run again broadcasts it again.
 * Forwarding's pass calls it. Answers how many were reported.
 */
export async function reportFinalSweeps(deps: SweepReportDeps): Promise<number> {
  const { db, clock, network, chain } = deps;
  const mined = await db.selectFrom('processor.sweeps').selectAll().where('network', '=', network.name).where('state', '=', 'mined')
    .where('reported_at', 'is', null).orderBy('id').limit(50).execute();
  let reported = 0;
  for (const sweep of mined) {
    const receipt = await chain.receipt(sweep.transfer_hash as Hex);
    if (!receipt) {
      const final = await chain.finalBlock();
      if (sweep.block_number !== null && BigInt(sweep.block_number) <= final.number) {
        await db.updateTable('processor.sweeps').set({ state: 'sending', failure: `its transfer ${sweep.transfer_hash} left the chain in a reorganisation: run processor sweep again to send it again`, updated_at: clock.now() })
          .where('id', '=', sweep.id).where('state', '=', 'mined').execute();
        deps.log(`[processor] ${network.name}: sweep ${sweep.id} left the chain in a reorganisation; it is sending again`);
      }
      continue;
    }
    if (!(await isFinalReceipt(chain, receipt))) continue;
    let movements: StoredMovement[];
    try {
      movements = [...await sweepTopUp(deps, sweep), ...verifyTransfers(receipt, [sweepTransfer(sweep)])];
    } catch (error) {
      if (!(error instanceof IneffectiveTransaction)) throw error;
      const reason = publicText(error.message);
      await db.updateTable('processor.sweeps').set({ state: 'failed', failure: reason, updated_at: clock.now() }).where('id', '=', sweep.id).execute();
      deps.log(`[processor] ${network.name}: sweep ${sweep.id} failed once final: ${reason}`);
      continue;
    }
    const token = network.tokens.find((candidate) => candidate.address.toLowerCase() === sweep.token);
    const decimals = token?.decimals ?? await chain.client.readContract({ address: sweep.token as Address, abi: metadataAbi, functionName: 'decimals' }).catch(() => 0);
    const now = clock.now();
    const done = await db.transaction().execute(async (trx) => {
      const updated = await trx.updateTable('processor.sweeps').set({ reported_at: now, block_number: receipt.blockNumber, movements: JSON.stringify(movements), updated_at: now })
        .where('id', '=', sweep.id).where('reported_at', 'is', null).returning('id').executeTakeFirst();
      if (!updated) return false;
      await enqueueNotice(trx, {
        id: `sweep:${network.name}:${sweep.id}`, type: 'sweep.completed', deposit_address: sweep.deposit_address, payment_id: sweep.payment_id,
        network: network.name, coin: token?.coin, token: sweep.token, forwarded_to: sweep.to_address, txid_out: sweep.transfer_hash,
        movements: settlementMovements(movements, decimals),
      }, now);
      return true;
    });
    if (done) reported += 1;
  }
  return reported;
}

/** The sweep's gas top-up as its receipt shows it now, if it had one. */
async function sweepTopUp(deps: SweepReportDeps, sweep: SweepRow): Promise<StoredMovement[]> {
  if (!sweep.top_up_hash) return [];
  const receipt = await deps.chain.receipt(sweep.top_up_hash as Hex);
  if (!receipt) throw new IneffectiveTransaction(`its gas top-up ${sweep.top_up_hash} is no longer on the chain`);
  return [await topUpShown(deps.chain, receipt, sweep)];
}

/** The transfer a sweep is for: its whole amount of the token, from the deposit address to its destination. */
function sweepTransfer(sweep: SweepRow) {
  return { kind: 'sweep' as const, token: sweep.token, from: sweep.deposit_address, to: sweep.to_address, value: BigInt(sweep.amount) };
}

/** The sweep's gas top-up as its mined receipt and transaction show it: the exact native value delivered to the deposit address. */
async function topUpShown(chain: ForwardChain, receipt: TransactionReceipt, sweep: SweepRow): Promise<StoredMovement> {
  return verifyTopUp(receipt, await chain.transaction(receipt.transactionHash), { to: sweep.deposit_address, value: BigInt(sweep.top_up_value ?? 0) });
}

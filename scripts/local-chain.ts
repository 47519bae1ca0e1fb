import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  createPublicClient, createWalletClient, defineChain, getContractAddress, http, keccak256, parseUnits, toHex,
  type Address, type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

// npm run chain: the whole Live path on a laptop (issue 22, must have 8). Starts Hardhat's EDR node
// on 127.0.0.1:8545 posing as Polygon (chain id 137), a block every 2 s; deploys the test USDC
// (EIP-3009) and USDT and our Multicall3-compatible contract from fixed dev keys, so their
// addresses are the same on every run; funds the processor's gas wallet (derived from the deposit
// seed the service will use) and mints test coins to a dev buyer; prints the settings to start the
// service with. Ctrl-C stops it; nothing is kept (each run starts a fresh chain).
//
// npm run chain -- pay <deposit address> <amount> [usdc|usdt]: the dev buyer sends that amount
// to the running node, as a buyer's wallet would.

const USAGE = `Usage:
  npm run chain [-- --port 8545] [--block-seconds 2]
      starts the local chain and prints the settings to start the service with
  npm run chain -- pay <deposit address> <amount> [usdc|usdt] [--port 8545]
      sends <amount> (e.g. 30.00) of the test coin from the dev buyer to the address`;

const CHAIN_ID = 137;
const CONFIRMATIONS = 2;
/** The dev accounts' keys: public, made up here, never to hold anything real. */
const devKey = (name: string): Hex => keccak256(toHex(`payment-service local chain: ${name}`));
export const DEV_KEYS = { deployer: devKey('deployer'), buyer: devKey('buyer'), gasWallet: devKey('spare gas wallet') };
const FEE_WALLET = privateKeyToAccount(devKey('fee wallet')).address;
const deployer = privateKeyToAccount(DEV_KEYS.deployer).address;
/** The deployer's first transactions on a fresh chain: USDC, USDT, then the batch contract. */
export const DEV_CONTRACTS = {
  usdc: getContractAddress({ from: deployer, nonce: 0n }),
  usdt: getContractAddress({ from: deployer, nonce: 1n }),
  multicall: getContractAddress({ from: deployer, nonce: 2n }),
};
const BUYER_COINS = 1_000_000n * 1_000_000n;
const GAS_WALLET_BALANCE = 1_000n * 10n ** 18n;

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

function port(text: string | undefined): number {
  const value = Number(text ?? '8545');
  if (!Number.isInteger(value) || value < 1 || value > 65_535) fail(`--port must be a port number, not ${JSON.stringify(text)}.\n\n${USAGE}`);
  return value;
}

async function start(options: { port: number; blockSeconds: number }): Promise<void> {
  // Loaded only here: `pay` needs none of it.
  const { embeddedDepositSeed } = await import('../src/core/deposit-wallet.ts');
  const { ProcessorKeys } = await import('../src/processor/chain/keys.ts');
  const { readFile } = await import('node:fs/promises');
  const { startChain } = await import('../test/support/chain.ts');
  const { deployTestTokens } = await import('../test/support/chain-tokens.ts');
  const { deployMulticall } = await import('../test/support/chain-multicall.ts');

  // The seed the service's processor will load: PROCESSOR_SEED_FILE, else DATA_DIR's, made now if missing as the service makes it.
  const seedFile = process.env.PROCESSOR_SEED_FILE;
  const dataDir = path.resolve(process.env.DATA_DIR || '.data');
  const seed = seedFile
    ? await readFile(seedFile, 'utf8').catch(() => fail(`Cannot read PROCESSOR_SEED_FILE at ${seedFile}.`))
    : await embeddedDepositSeed({ dataDir }).catch((error: Error) => fail(error.message));
  const hex = seed.trim().replace(/^0x/i, '');
  if (!/^([0-9a-fA-F]{2}){16,64}$/.test(hex)) fail(`The deposit seed at ${seedFile ?? path.join(dataDir, 'deposit-wallet.seed')} is not a seed of 16 to 64 bytes written in hex.`);
  const gasWallet = new ProcessorKeys(Buffer.from(hex, 'hex')).gasWallet.address;
  // Each run is a new chain; a database that watched an earlier one keeps its cursor and the gas wallet's nonces.
  const { existsSync } = await import('node:fs');
  const usedBefore = existsSync(path.join(dataDir, 'pg'));

  // The node's server reports a taken port as an unhandled error event: asked first, the answer is a sentence.
  const { createServer } = await import('node:net');
  const probe = createServer();
  await new Promise<void>((resolve) => {
    probe.once('error', (error: NodeJS.ErrnoException) => fail(error.code === 'EADDRINUSE'
      ? `Port ${options.port} on 127.0.0.1 is taken (another \`npm run chain\`, or another node?). Stop it, or pick another port: npm run chain -- --port 8546`
      : `Cannot listen on 127.0.0.1:${options.port}: ${error.message}`));
    probe.listen(options.port, '127.0.0.1', () => probe.close(() => resolve()));
  });
  const chain = await startChain({ chainId: CHAIN_ID, port: options.port, keys: DEV_KEYS, blockIntervalMs: options.blockSeconds * 1_000 });
  const tokens = await deployTestTokens(chain);
  const multicall = await deployMulticall(chain);
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  if (!same(tokens.address.usdc, DEV_CONTRACTS.usdc) || !same(tokens.address.usdt, DEV_CONTRACTS.usdt) || !same(multicall, DEV_CONTRACTS.multicall)) {
    throw new Error('the contracts were not deployed at their usual addresses');
  }
  await tokens.mint('usdc', chain.accounts.buyer.address, BUYER_COINS);
  await tokens.mint('usdt', chain.accounts.buyer.address, BUYER_COINS);
  await chain.fund(gasWallet, GAS_WALLET_BALANCE);

  const settings = {
    POLYGON_RPC_URL: chain.url,
    POLYGON_CHAIN_ID: String(CHAIN_ID),
    POLYGON_CONFIRMATIONS: String(CONFIRMATIONS),
    POLYGON_USDC: DEV_CONTRACTS.usdc,
    POLYGON_USDT: DEV_CONTRACTS.usdt,
    POLYGON_MULTICALL: DEV_CONTRACTS.multicall,
    PROCESSOR_FEE_WALLET: FEE_WALLET,
  };
  const env = Object.entries(settings).map(([name, value]) => `${name}=${value}`);
  // The service must load the seed whose gas wallet was funded.
  const seedSettings = [
    ...(process.env.DATA_DIR ? [`DATA_DIR=${process.env.DATA_DIR}`] : []),
    ...(seedFile ? [`PROCESSOR_SEED_FILE=${path.resolve(seedFile)}`] : []),
  ];
  const portFlag = options.port === 8545 ? '' : ` --port ${options.port}`;
  console.log(`Local chain on ${chain.url}: posing as Polygon (chain id ${CHAIN_ID}), a block every ${options.blockSeconds} s.
Test USDC (EIP-3009) ${DEV_CONTRACTS.usdc}, test USDT ${DEV_CONTRACTS.usdt}, batch contract ${DEV_CONTRACTS.multicall}.
Dev buyer ${chain.accounts.buyer.address} holds 1,000,000 of each; the processor's gas wallet ${gasWallet} holds 1,000 POL
(derived from ${seedFile ?? path.join(dataDir, 'deposit-wallet.seed')}).

Settings:

${env.join('\n')}

Next, in another terminal, in this directory:

  1. Start the service with these settings:
       ${[...env, ...seedSettings].join(' ')} npm start
  2. Create a demo business, give it a payout wallet and a Live key:
       npm run --silent cli -- demo
       npm run --silent cli -- business update <business id> --payout-wallet 0x2222222222222222222222222222222222222222
       npm run --silent cli -- keys create --business <business id> --mode live
  3. Open a Live link: create one with the Live key (see docs/run-it.md, "Live on a local chain"), open its url and enter an email;
     the page shows the deposit address and the amount.
  4. Pay it from the dev buyer:
       npm run chain -- pay <deposit address> <amount> [usdc|usdt]${portFlag}
     Within seconds of the deposit being final (${CONFIRMATIONS} blocks) the payment is paid; the forward to the payout wallet follows.

Ctrl-C stops the chain (its state is not kept).`);
  if (usedBefore) {
    console.error(`\nWarning: ${dataDir} already holds a database, which remembers an earlier chain (the processor's cursor, the gas wallet's nonces):
on this new chain its forwards would wait forever. Walk it with a DATA_DIR of its own, made afresh each time:
  rm -rf .data-chain && DATA_DIR=.data-chain npm run chain`);
  }

  const stop = async () => {
    await chain.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

async function pay(args: string[], options: { port: number }): Promise<void> {
  const [to, amount, coin = 'usdc'] = args;
  if (!to || !/^0x[0-9a-fA-F]{40}$/.test(to)) fail(`pay needs a deposit address (0x and 40 hex digits).\n\n${USAGE}`);
  if (!amount || !/^\d+(\.\d{1,6})?$/.test(amount)) fail(`pay needs an amount such as 30.00 (up to six decimals).\n\n${USAGE}`);
  if (coin !== 'usdc' && coin !== 'usdt') fail(`the coin is usdc or usdt, not ${JSON.stringify(coin)}.`);
  const url = `http://127.0.0.1:${options.port}`;
  const chain = defineChain({ id: CHAIN_ID, name: 'local chain', nativeCurrency: { name: 'POL', symbol: 'POL', decimals: 18 }, rpcUrls: { default: { http: [url] } } });
  const transport = http(url, { retryCount: 0 });
  const client = createPublicClient({ chain, transport, pollingInterval: 200 });
  const chainId = await client.getChainId().catch(() => fail(`No local chain answers on ${url}: start it with npm run chain${options.port === 8545 ? '' : ` -- --port ${options.port}`}.`));
  if (chainId !== CHAIN_ID) fail(`The node on ${url} answers chain id ${chainId}, not ${CHAIN_ID}: it is not npm run chain's.`);
  const token: Address = DEV_CONTRACTS[coin];
  if (!(await client.getCode({ address: token }))) fail(`No test ${coin.toUpperCase()} at ${token} on ${url}: is that node npm run chain's?`);
  const abi = [{ type: 'function', name: 'transfer', stateMutability: 'nonpayable', inputs: [{ name: 'to', type: 'address' }, { name: 'value', type: 'uint256' }], outputs: [{ type: 'bool' }] }] as const;
  const wallet = createWalletClient({ account: privateKeyToAccount(DEV_KEYS.buyer), chain, transport });
  const hash = await wallet.writeContract({ address: token, abi, functionName: 'transfer', args: [to as Address, parseUnits(amount, 6)] });
  const receipt = await client.waitForTransactionReceipt({ hash, timeout: 60_000 });
  if (receipt.status !== 'success') fail(`The transfer ${hash} reverted.`);
  console.log(`Sent ${amount} ${coin.toUpperCase()} from the dev buyer to ${to}: ${hash} (block ${receipt.blockNumber}).`);
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { port: { type: 'string' }, 'block-seconds': { type: 'string' }, help: { type: 'boolean' } },
});
if (values.help) {
  console.log(USAGE);
} else if (positionals[0] === 'pay') {
  await pay(positionals.slice(1), { port: port(values.port) });
} else if (positionals.length > 0) {
  fail(`Unknown command ${JSON.stringify(positionals[0])}.\n\n${USAGE}`);
} else {
  const blockSeconds = Number(values['block-seconds'] ?? '2');
  if (!(blockSeconds > 0 && blockSeconds <= 60)) fail(`--block-seconds must be a number of seconds up to 60, not ${JSON.stringify(values['block-seconds'])}.`);
  await start({ port: port(values.port), blockSeconds });
}

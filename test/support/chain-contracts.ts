import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseAbi, type Abi, type Hex } from 'viem';

// The test tokens (and the batch contract) of test/fixtures/chain/, compiled from our Solidity and OpenZeppelin's with solc's
// bundled compiler (nothing downloaded). Compiling takes seconds, so the result is cached in the
// temporary directory under a hash of every source and the compiler's version.

const FIXTURES = path.join(import.meta.dirname, '../fixtures/chain');
const OPENZEPPELIN = path.dirname(createRequire(import.meta.url).resolve('@openzeppelin/contracts/package.json'));
const CONTRACTS = ['TestUSDCoin', 'TestTetherUSD', 'TestMulticall3', 'TestSmartAccount'] as const;
export type TestTokenName = (typeof CONTRACTS)[number];

/** What the tests call, typed for viem; `compiledTokens` checks the compiled ABI has each of them. */
export const testTokenAbi = parseAbi([
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function decimals() view returns (uint8)',
  'function totalSupply() view returns (uint256)',
  'function balanceOf(address account) view returns (uint256)',
  'function transfer(address to, uint256 value) returns (bool)',
  'function mint(address to, uint256 amount)',
  'function blacklist(address account)',
  'function unBlacklist(address account)',
  'function isBlacklisted(address account) view returns (bool)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
]);

export const eip3009Abi = parseAbi([
  'function DOMAIN_SEPARATOR() view returns (bytes32)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
  'event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)',
]);

/** An EIP-1271 smart account of one owner (TestSmartAccount.sol). */
export const smartAccountAbi = parseAbi([
  'function owner() view returns (address)',
  'function isValidSignature(bytes32 hash, bytes signature) view returns (bytes4)',
]);

/** Multicall3's aggregate3, as the processor calls it (src/processor/chain/forward-chain.ts). */
export const multicall3Abi = parseAbi([
  'struct Call3 { address target; bool allowFailure; bytes callData; }',
  'struct Result { bool success; bytes returnData; }',
  'function aggregate3(Call3[] calls) payable returns (Result[] returnData)',
]);

export type CompiledToken = { abi: Abi; bytecode: Hex };

type SolcOutput = {
  errors?: { severity: 'error' | 'warning' | 'info'; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
};

function sourceOf(importPath: string): string {
  const file = importPath.startsWith('@openzeppelin/contracts/')
    ? path.join(OPENZEPPELIN, importPath.slice('@openzeppelin/contracts/'.length))
    : path.join(FIXTURES, importPath);
  return readFileSync(file, 'utf8');
}

async function compile(): Promise<Record<TestTokenName, CompiledToken>> {
  // Loaded only to compile: its 9 MB of WebAssembly take half a second to load.
  const { default: solc } = await import('solc');
  const sources = Object.fromEntries(CONTRACTS.map((name) => [`${name}.sol`, { content: sourceOf(`${name}.sol`) }]));
  const input = {
    language: 'Solidity',
    sources,
    // No optimizer: it slows compiling and gas does not matter here. Cancun runs on every EDR hardfork we use.
    settings: { evmVersion: 'cancun', outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const output = JSON.parse(
    solc.compile(JSON.stringify(input), {
      import: (importPath: string) => {
        try {
          return { contents: sourceOf(importPath) };
        } catch {
          return { error: `not found: ${importPath}` };
        }
      },
    }),
  ) as SolcOutput;
  const errors = (output.errors ?? []).filter((error) => error.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((error) => error.formattedMessage).join('\n'));
  return Object.fromEntries(
    CONTRACTS.map((name) => {
      const contract = output.contracts?.[`${name}.sol`]?.[name];
      if (!contract) throw new Error(`solc produced no ${name}`);
      return [name, { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` }];
    }),
  ) as Record<TestTokenName, CompiledToken>;
}

function packageVersion(name: string): string {
  const file = createRequire(import.meta.url).resolve(`${name}/package.json`);
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

function sourcesHash(): string {
  const hash = createHash('sha256');
  for (const dependency of ['solc', '@openzeppelin/contracts']) hash.update(packageVersion(dependency));
  for (const name of [...CONTRACTS, 'Blacklistable']) hash.update(sourceOf(`${name}.sol`));
  return hash.digest('hex').slice(0, 16);
}

function requireSignatures(name: string, compiled: Abi, declared: Abi): void {
  const key = (item: Abi[number]) =>
    'name' in item ? `${item.type} ${item.name}(${item.inputs.map((input) => input.type).join(',')})` : item.type;
  const present = new Set(compiled.map(key));
  const missing = declared.map(key).filter((signature) => !present.has(signature));
  if (missing.length > 0) throw new Error(`${name} lacks ${missing.join(', ')}`);
}

let compiled: Promise<Record<TestTokenName, CompiledToken>> | undefined;

/** Both tokens' ABI and bytecode: from the cache when the sources did not change, else compiled. */
export function compiledTokens(): Promise<Record<TestTokenName, CompiledToken>> {
  compiled ??= (async () => {
    const cacheFile = path.join(tmpdir(), 'payment-service-chain-tokens', `${sourcesHash()}.json`);
    const cached = await readFile(cacheFile, 'utf8').then(
      (text) => JSON.parse(text) as Record<TestTokenName, CompiledToken>,
      () => undefined,
    );
    const tokens = cached ?? (await compile());
    requireSignatures('TestUSDCoin', tokens.TestUSDCoin.abi, [...testTokenAbi, ...eip3009Abi]);
    requireSignatures('TestTetherUSD', tokens.TestTetherUSD.abi, testTokenAbi);
    requireSignatures('TestMulticall3', tokens.TestMulticall3.abi, multicall3Abi);
    requireSignatures('TestSmartAccount', tokens.TestSmartAccount.abi, smartAccountAbi);
    if (!cached) {
      // Written aside then renamed, so a test file compiling at the same time never reads half a file.
      await mkdir(path.dirname(cacheFile), { recursive: true });
      const partial = `${cacheFile}.${process.pid}`;
      await writeFile(partial, JSON.stringify(tokens));
      await rename(partial, cacheFile);
    }
    return tokens;
  })();
  return compiled;
}

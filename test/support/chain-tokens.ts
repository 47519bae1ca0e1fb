import type { Address, Hash, Hex, PrivateKeyAccount, TransactionReceipt } from 'viem';
import type { TestChain } from './chain.ts';
import { compiledTokens, eip3009Abi, testTokenAbi } from './chain-contracts.ts';

// The two test tokens deployed on a test chain, and what a test does with them: mint, transfer,
// read balances, refuse an account. Amounts are in the tokens' base units (six decimals).

export type TokenSymbol = 'usdc' | 'usdt';

export type TestTokens = {
  address: Record<TokenSymbol, Address>;
  mint(token: TokenSymbol, to: Address, amount: bigint): Promise<TransactionReceipt>;
  transfer(token: TokenSymbol, from: PrivateKeyAccount, to: Address, amount: bigint): Promise<TransactionReceipt>;
  balanceOf(token: TokenSymbol, account: Address): Promise<bigint>;
  /** The token refuses every transfer from or to the account from then on, as USDC's blacklist does. */
  refuse(token: TokenSymbol, account: Address): Promise<TransactionReceipt>;
  authorizationState(authorizer: Address, nonce: Hex): Promise<boolean>;
};

/** The EIP-712 types of an EIP-3009 transfer: the processor's own (src/core/eip3009.ts). */
export { transferWithAuthorizationTypes } from '../../src/core/eip3009.ts';

/** The USDC-like token's EIP-712 domain: FiatTokenV2's name and version on this chain. */
export function usdcDomain(chain: TestChain, tokens: TestTokens) {
  return { name: 'USD Coin', version: '2', chainId: chain.chain.id, verifyingContract: tokens.address.usdc } as const;
}

/** Deploys both tokens from the deployer account (mined, whatever the automine setting). */
export async function deployTestTokens(chain: TestChain): Promise<TestTokens> {
  const compiled = await compiledTokens();
  const deployer = chain.wallet(chain.accounts.deployer);
  const deploy = (name: keyof typeof compiled) =>
    deployer.deployContract({ abi: compiled[name].abi, bytecode: compiled[name].bytecode });
  // Both sent before one block mines them, so deploying costs at most one block.
  const [usdc, usdt] = await chain.confirmAll([await deploy('TestUSDCoin'), await deploy('TestTetherUSD')]);
  if (!usdc?.contractAddress || !usdt?.contractAddress) throw new Error('a token deployment made no contract');
  const address = { usdc: usdc.contractAddress, usdt: usdt.contractAddress };

  const confirmed = (sent: Promise<Hash>) => sent.then(chain.confirm);
  const contract = (token: TokenSymbol) => ({ address: address[token], abi: testTokenAbi });
  return {
    address,
    mint: (token, to, amount) =>
      confirmed(deployer.writeContract({ ...contract(token), functionName: 'mint', args: [to, amount] })),
    transfer: (token, from, to, amount) =>
      confirmed(chain.wallet(from).writeContract({ ...contract(token), functionName: 'transfer', args: [to, amount] })),
    balanceOf: (token, account) =>
      chain.client.readContract({ address: address[token], abi: testTokenAbi, functionName: 'balanceOf', args: [account] }),
    refuse: (token, account) =>
      confirmed(deployer.writeContract({ ...contract(token), functionName: 'blacklist', args: [account] })),
    authorizationState: (authorizer, nonce) =>
      chain.client.readContract({
        address: address.usdc,
        abi: eip3009Abi,
        functionName: 'authorizationState',
        args: [authorizer, nonce],
      }),
  };
}

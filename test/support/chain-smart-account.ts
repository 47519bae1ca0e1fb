import type { Address } from 'viem';
import type { TestChain } from './chain.ts';
import { compiledTokens } from './chain-contracts.ts';

// A smart account (test/fixtures/chain/TestSmartAccount.sol, EIP-1271) on a test chain: a
// contract that holds tokens and takes its owner key's signatures as its own.

export async function deploySmartAccount(chain: TestChain, owner: Address): Promise<Address> {
  const { TestSmartAccount } = await compiledTokens();
  const hash = await chain.wallet(chain.accounts.deployer).deployContract({ abi: TestSmartAccount.abi, bytecode: TestSmartAccount.bytecode, args: [owner] });
  const receipt = await chain.confirm(hash);
  if (!receipt.contractAddress) throw new Error('the smart account deployment made no contract');
  return receipt.contractAddress;
}

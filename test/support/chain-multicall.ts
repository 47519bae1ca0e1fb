import type { Address } from 'viem';
import type { TestChain } from './chain.ts';
import { compiledTokens } from './chain-contracts.ts';

// Our Multicall3-compatible batch contract (test/fixtures/chain/TestMulticall3.sol) on a test chain:
// on a real chain Multicall3 is already at 0xcA11…CA11; a test deploys ours and names its address.

export async function deployMulticall(chain: TestChain): Promise<Address> {
  const { TestMulticall3 } = await compiledTokens();
  const hash = await chain.wallet(chain.accounts.deployer).deployContract({ abi: TestMulticall3.abi, bytecode: TestMulticall3.bytecode });
  const receipt = await chain.confirm(hash);
  if (!receipt.contractAddress) throw new Error('the batch contract deployment made no contract');
  return receipt.contractAddress;
}

import { decodeFunctionData, parseAbi, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { submissionCall } from '../../src/processor/x402/submissions.ts';

// The calldata the processor sends for a buyer's authorization (issue 33, docs/x402.md): the
// v, r, s form for a key's 65-byte signature, whichever way its last byte says the parity.

const abi = parseAbi([
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
]);

async function authorizationWithParity(parity: 0 | 1) {
  for (;;) {
    const signer = privateKeyToAccount(generatePrivateKey());
    const signature = await signer.signMessage({ message: 'any' });
    if (Number.parseInt(signature.slice(-2), 16) - 27 !== parity) continue;
    return {
      payer: signer.address.toLowerCase(), pay_to: `0x${'22'.repeat(20)}`, value: '1000000', valid_after: '0', valid_before: '1900000000',
      nonce: `0x${'33'.repeat(32)}`, signature,
    };
  }
}

describe('transferWithAuthorization calldata', () => {
  it.each([0, 1] as const)('a key\'s signature with v 27 + %i, or the same parity as a last byte of 0 or 1, sends the same v', async (parity) => {
    const authorization = await authorizationWithParity(parity);
    const asV = decodeFunctionData({ abi, data: submissionCall(authorization, false) });
    const compact = { ...authorization, signature: `${authorization.signature.slice(0, -2)}0${parity}` };
    const asParity = decodeFunctionData({ abi, data: submissionCall(compact, false) });
    expect(asV.args.length).toBe(9);
    expect(asV.args[6]).toBe(27 + parity);
    expect(asParity.args).toEqual(asV.args);
  });

  it('a 65-byte signature with no key\'s v, or a smart account\'s, goes in the bytes form for the token to judge', async () => {
    const authorization = await authorizationWithParity(0);
    const odd = { ...authorization, signature: `${authorization.signature.slice(0, -2)}05` as Hex };
    expect(decodeFunctionData({ abi, data: submissionCall(odd, false) }).args).toHaveLength(7);
    expect(decodeFunctionData({ abi, data: submissionCall(authorization, true) }).args).toHaveLength(7);
  });

  it('a value beyond uint256 cannot be encoded (the processor refuses such a claim)', async () => {
    const authorization = await authorizationWithParity(0);
    expect(() => submissionCall({ ...authorization, valid_before: (2n ** 256n).toString() }, false)).toThrow();
  });
});

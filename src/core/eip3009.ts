// EIP-3009's typed data, as Circle's FiatTokenV2 hashes it: what forwarding signs with deposit keys
// (processor/forwarding/authorizations.ts) and what buyers sign over x402 (resources/x402).

/** The EIP-712 types of an EIP-3009 `transferWithAuthorization`. */
export const transferWithAuthorizationTypes = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

-- Payments over HTTP 402 (issue 33, docs/x402.md). A buyer's signed EIP-3009 authorization, once
-- the service verified it against what it offered: claimed here once, before anything moves.
-- `verified`: checked by the service, waiting for the processor (Live); `submitted`: the
-- processor's transaction carries it (`tx_hash`); `settled`: the money arrived (Live: the deposit
-- was detected; Test: the simulation paid); `refused`: the processor's on-chain checks refused it
-- (`reason`, the protocol's error reason), nothing submitted.
CREATE TABLE x402_authorizations (
  id text PRIMARY KEY,
  payment_id text NOT NULL REFERENCES payments (id),
  business_id text NOT NULL,
  livemode boolean NOT NULL,
  -- CAIP-2 (eip155:137); Test mode's is eip155:84532.
  network text NOT NULL,
  -- The token, the authorizer (the buyer's wallet) and the recipient (the payment's deposit
  -- address), lowercase hex.
  asset text NOT NULL CHECK (asset ~ '^0x[0-9a-f]{40}$'),
  payer text NOT NULL CHECK (payer ~ '^0x[0-9a-f]{40}$'),
  pay_to text NOT NULL CHECK (pay_to ~ '^0x[0-9a-f]{40}$'),
  -- The token's units (six decimals), and the window, Unix seconds, as signed.
  value numeric(78, 0) NOT NULL CHECK (value > 0),
  valid_after numeric(78, 0) NOT NULL,
  valid_before numeric(78, 0) NOT NULL,
  nonce text NOT NULL CHECK (nonce ~ '^0x[0-9a-f]{64}$'),
  signature text NOT NULL CHECK (signature ~ '^0x([0-9a-f]{2})+$'),
  state text NOT NULL CHECK (state IN ('verified', 'submitted', 'settled', 'refused')),
  reason text,
  tx_hash text CHECK (tx_hash ~ '^0x[0-9a-f]{64}$'),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
-- An authorization is claimed once: EIP-3009 nonces are the authorizer's, per token.
CREATE UNIQUE INDEX x402_authorizations_once ON x402_authorizations (network, asset, payer, nonce);
-- A payment takes one authorization at a time: a second, while one is on its way, would pay twice.
CREATE UNIQUE INDEX x402_authorizations_one_per_payment ON x402_authorizations (payment_id) WHERE state <> 'refused';
-- The processor's catch-up: what is waiting for it.
CREATE INDEX x402_authorizations_waiting ON x402_authorizations (network, created_at) WHERE state = 'verified';

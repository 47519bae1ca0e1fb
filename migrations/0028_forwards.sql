-- Issue 22, must have 4: forwarding each final deposit to the merchant's payout wallet (net) and the
-- operator's fee wallet (fee), exactly once. Everything a forward does is written down here before
-- it happens: the forward before anything is signed, each signed transaction (its raw bytes and
-- hash) before it is broadcast, and the nonces of the accounts that send them.

-- One forward per recorded transfer (network, transaction, log index): what it moves, where, and
-- how far it got. `planned`: written, nothing signed; `sending`: its transactions are signed,
-- broadcast or mined; `final`: every share is in a final block; `failed`: the last attempt could
-- not happen (the reason says why) and is tried again from `retry_at`; `canceled`: the transfer
-- was taken away by a reorganisation before anything was signed.
CREATE TABLE processor.forwards (
  id bigserial PRIMARY KEY,
  network text NOT NULL,
  transfer_tx_hash text NOT NULL,
  transfer_log_index integer NOT NULL,
  payment_id text NOT NULL,
  deposit_address text NOT NULL CHECK (deposit_address ~ '^0x[0-9a-f]{40}$'),
  deposit_index bigint NOT NULL CHECK (deposit_index >= 0),
  token text NOT NULL CHECK (token ~ '^0x[0-9a-f]{40}$'),
  -- `authorization`: EIP-3009 authorizations submitted in one batch by the gas wallet;
  -- `top_up`: the gas wallet sends the deposit address the exact gas, which then sends the shares.
  method text NOT NULL CHECK (method IN ('authorization', 'top_up')),
  value numeric(78, 0) NOT NULL CHECK (value > 0),
  fee_bps integer NOT NULL CHECK (fee_bps BETWEEN 0 AND 10000),
  net numeric(78, 0) NOT NULL CHECK (net >= 0),
  fee numeric(78, 0) NOT NULL CHECK (fee >= 0),
  payout_wallet text NOT NULL CHECK (payout_wallet ~ '^0x[0-9a-f]{40}$'),
  fee_wallet text NOT NULL CHECK (fee_wallet ~ '^0x[0-9a-f]{40}$'),
  state text NOT NULL CHECK (state IN ('planned', 'sending', 'final', 'failed', 'canceled')),
  failure text,
  attempts integer NOT NULL DEFAULT 0,
  retry_at timestamptz,
  -- The transaction that paid the merchant (txid_out), once final.
  txid_out text CHECK (txid_out ~ '^0x[0-9a-f]{64}$'),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK (net + fee = value),
  UNIQUE (network, transfer_tx_hash, transfer_log_index),
  FOREIGN KEY (network, transfer_tx_hash, transfer_log_index) REFERENCES processor.transfers (network, tx_hash, log_index)
);
CREATE INDEX forwards_open ON processor.forwards (network) WHERE state IN ('planned', 'sending', 'failed');

-- The next nonce of each account the processor sends from (the gas wallet, deposit addresses),
-- taken in the transaction that stores the transaction signed with it, so a nonce is never used
-- for two different transactions.
CREATE TABLE processor.sender_nonces (
  network text NOT NULL,
  address text NOT NULL CHECK (address ~ '^0x[0-9a-f]{40}$'),
  kind text NOT NULL CHECK (kind IN ('gas_wallet', 'deposit')),
  next_nonce bigint NOT NULL CHECK (next_nonce >= 0),
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (network, address)
);

-- Each transaction a forward sends, one row per (sender, nonce): its calls never change; a
-- replacement at a higher fee re-signs the same calls with the same nonce, keeping the hashes
-- it replaced (any of them may be the one mined). `shares` names what it moves ('net', 'fee';
-- none for a gas top-up).
CREATE TABLE processor.forward_transactions (
  id bigserial PRIMARY KEY,
  forward_id bigint NOT NULL REFERENCES processor.forwards (id),
  network text NOT NULL,
  purpose text NOT NULL CHECK (purpose IN ('batch', 'top_up', 'share')),
  shares text[] NOT NULL,
  sender text NOT NULL CHECK (sender ~ '^0x[0-9a-f]{40}$'),
  nonce bigint NOT NULL CHECK (nonce >= 0),
  to_address text NOT NULL CHECK (to_address ~ '^0x[0-9a-f]{40}$'),
  data text NOT NULL CHECK (data ~ '^0x([0-9a-f]{2})*$'),
  value numeric(78, 0) NOT NULL,
  gas bigint NOT NULL,
  -- type 2 (EIP-1559) for the gas wallet; legacy for a deposit address, whose top-up is exact.
  max_fee_per_gas numeric(78, 0) NOT NULL,
  max_priority_fee_per_gas numeric(78, 0),
  raw text NOT NULL,
  tx_hash text NOT NULL CHECK (tx_hash ~ '^0x[0-9a-f]{64}$'),
  replaced_hashes text[] NOT NULL DEFAULT '{}',
  -- `signed`: stored, maybe not broadcast; `broadcast`: a node took it; `mined`: in a block not
  -- yet final; `final`; `reverted`: mined and failed (its nonce is spent); `dropped`: its nonce
  -- was spent by a transaction that is none of its hashes (never ours: a warning sign).
  state text NOT NULL CHECK (state IN ('signed', 'broadcast', 'mined', 'final', 'reverted', 'dropped')),
  block_number bigint,
  block_hash text,
  signed_at timestamptz NOT NULL,
  broadcast_at timestamptz,
  updated_at timestamptz NOT NULL,
  UNIQUE (network, sender, nonce)
);
CREATE INDEX forward_transactions_forward ON processor.forward_transactions (forward_id);

-- Each network's gas wallet as the last forwarding pass saw it: its address (the status command
-- holds no key), its balance and the low-gas threshold then (20 forwards' gas at the gas price).
CREATE TABLE processor.gas_wallets (
  network text PRIMARY KEY,
  address text NOT NULL CHECK (address ~ '^0x[0-9a-f]{40}$'),
  balance numeric(78, 0),
  low_below numeric(78, 0),
  checked_at timestamptz
);

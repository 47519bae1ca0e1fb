-- Issue 22, must have 6: `processor sweep` moves a stray token (one no forward covers) from a
-- deposit address to the merchant's payout wallet or the operator's fee wallet. As a forward's,
-- everything it does is written down before it happens: the sweep before anything is signed, its
-- signed transactions (raw bytes and hash, under nonces taken from processor.sender_nonces) before
-- they are broadcast.
--
-- `planned`: written, nothing signed; `sending`: its transactions are signed and stored (maybe
-- broadcast); `mined`: the transfer is in a block (the command waits for that, not finality);
-- `failed`: it could not happen (the reason says why; no nonce was spent, or its transfer reverted).
CREATE TABLE processor.sweeps (
  id bigserial PRIMARY KEY,
  network text NOT NULL,
  deposit_address text NOT NULL CHECK (deposit_address ~ '^0x[0-9a-f]{40}$'),
  deposit_index bigint NOT NULL CHECK (deposit_index >= 0),
  payment_id text NOT NULL,
  token text NOT NULL CHECK (token ~ '^0x[0-9a-f]{40}$'),
  amount numeric(78, 0) NOT NULL CHECK (amount > 0),
  destination text NOT NULL CHECK (destination IN ('merchant', 'operator')),
  to_address text NOT NULL CHECK (to_address ~ '^0x[0-9a-f]{40}$'),
  state text NOT NULL CHECK (state IN ('planned', 'sending', 'mined', 'failed')),
  failure text,
  -- The gas wallet's exact top-up (none when the deposit address held enough gas).
  top_up_nonce bigint,
  top_up_value numeric(78, 0),
  top_up_raw text,
  top_up_hash text CHECK (top_up_hash ~ '^0x[0-9a-f]{64}$'),
  -- The deposit address's transfer(to, amount), legacy-priced so its cost is gas used × price.
  transfer_nonce bigint,
  gas bigint,
  gas_price numeric(78, 0),
  transfer_raw text,
  transfer_hash text CHECK (transfer_hash ~ '^0x[0-9a-f]{64}$'),
  block_number bigint,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
-- One sweep in flight per deposit address: a second command at once is refused, never signed.
CREATE UNIQUE INDEX sweeps_open ON processor.sweeps (network, deposit_address) WHERE state IN ('planned', 'sending');

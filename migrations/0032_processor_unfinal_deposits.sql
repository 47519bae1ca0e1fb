-- Issue 22, must have 6: deposits seen in blocks not final yet, for the status ("waiting for
-- finality"). Each poll replaces a network's rows with what the blocks after the final one hold
-- now, so a deposit a reorganisation took away leaves on its own. Nothing acts on these rows:
-- notices and forwarding act on processor.transfers, written only from final blocks.
CREATE TABLE processor.unfinal_deposits (
  network text NOT NULL,
  tx_hash text NOT NULL CHECK (tx_hash ~ '^0x[0-9a-f]{64}$'),
  log_index integer NOT NULL CHECK (log_index >= 0),
  block_number bigint NOT NULL,
  token text NOT NULL CHECK (token ~ '^0x[0-9a-f]{40}$'),
  to_address text NOT NULL CHECK (to_address ~ '^0x[0-9a-f]{40}$'),
  value numeric(78, 0) NOT NULL CHECK (value > 0),
  seen_at timestamptz NOT NULL,
  PRIMARY KEY (network, tx_hash, log_index)
);

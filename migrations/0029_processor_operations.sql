-- Issue 22, operating the processor: what each network's scans saw and how they went (read by
-- `processor status`, the metrics and /readyz from the database alone, on any machine), the
-- transfers out of watched addresses (so a balance can be reconciled against in − out), and
-- what the balance reconciliation found.

-- One row per network, written by every scan: the head and final block it read, when a scan
-- last reached the final block, its last error, and running counts for the metrics.
CREATE TABLE processor.network_scans (
  network text PRIMARY KEY,
  head_block bigint CHECK (head_block >= 0),
  final_block bigint CHECK (final_block >= 0),
  observed_at timestamptz,
  scanned_at timestamptz,
  last_error text,
  last_error_at timestamptz,
  scan_errors bigint NOT NULL DEFAULT 0,
  transfers_recorded bigint NOT NULL DEFAULT 0,
  reconciled_at timestamptz,
  reconciled_block bigint
);

-- Token transfers out of watched addresses (forwards, and anything else that moved their money),
-- found in the same logs as the deposits, each once; `removed` as for processor.transfers. Never
-- a deposit: nothing forwards these.
CREATE TABLE processor.outgoing_transfers (
  network text NOT NULL,
  tx_hash text NOT NULL CHECK (tx_hash ~ '^0x[0-9a-f]{64}$'),
  log_index integer NOT NULL CHECK (log_index >= 0),
  block_number bigint NOT NULL,
  block_hash text NOT NULL CHECK (block_hash ~ '^0x[0-9a-f]{64}$'),
  token text NOT NULL CHECK (token ~ '^0x[0-9a-f]{40}$'),
  from_address text NOT NULL CHECK (from_address ~ '^0x[0-9a-f]{40}$'),
  to_address text NOT NULL CHECK (to_address ~ '^0x[0-9a-f]{40}$'),
  value numeric(78, 0) NOT NULL CHECK (value > 0),
  status text NOT NULL CHECK (status IN ('final', 'removed')),
  recorded_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (network, tx_hash, log_index)
);
CREATE INDEX outgoing_transfers_from ON processor.outgoing_transfers (from_address);
CREATE INDEX outgoing_transfers_block ON processor.outgoing_transfers (network, block_number);

-- A balance at a final block that the recorded transfers did not explain, and what the address's
-- re-scan made of it: `recovered` (the missing transfers were found and recorded) or `unexplained`
-- (the whole watch window was re-scanned; the same difference is not re-scanned again).
CREATE TABLE processor.balance_findings (
  network text NOT NULL,
  address text NOT NULL CHECK (address ~ '^0x[0-9a-f]{40}$'),
  token text NOT NULL CHECK (token ~ '^0x[0-9a-f]{40}$'),
  block_number bigint NOT NULL,
  balance numeric(78, 0) NOT NULL,
  expected numeric(78, 0) NOT NULL,
  recovered integer NOT NULL CHECK (recovered >= 0),
  outcome text NOT NULL CHECK (outcome IN ('recovered', 'unexplained')),
  found_at timestamptz NOT NULL
);
-- Several findings may share a block (a re-scan after its back-off, with no new block between).
CREATE INDEX balance_findings_address ON processor.balance_findings (network, address, token);
CREATE INDEX balance_findings_network ON processor.balance_findings (network, found_at);

-- Issue 22 (must-have 7): what the processor last said about each network it watches, from its
-- signed `processor.status` notices (every ~15 s). One row per network, overwritten by a newer
-- report; a Live start offers a network's coins only while its row is healthy and recent.
-- Only the latest report is kept: the notices themselves are not recorded when accepted.
CREATE TABLE processor_networks (
  network text PRIMARY KEY CHECK (network IN ('polygon', 'base', 'ethereum')),
  chain_id bigint NOT NULL CHECK (chain_id > 0),
  -- The coins the processor watches on it (service names: polygon_usdc, ...), a subset of the network's.
  coins text[] NOT NULL,
  healthy boolean NOT NULL,
  -- Null while the processor has not scanned the network yet.
  head_block bigint CHECK (head_block >= 0),
  final_block bigint CHECK (final_block >= 0),
  cursor_block bigint CHECK (cursor_block >= 0),
  -- A short sentence of the processor's when it is not healthy; null otherwise.
  problem text,
  -- When the processor made the report (its sent_at), and when the service received it.
  reported_at timestamptz NOT NULL,
  received_at timestamptz NOT NULL,
  notice_id text NOT NULL
);

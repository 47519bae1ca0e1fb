-- Issue 22, the processor's detection. Its state lives in its own schema: the service's tables
-- never hold it, and the processor reads the service's tables only to catch up on the deposit
-- addresses it should watch (at start; after that it learns each one through NOTIFY below).
CREATE SCHEMA processor;

-- Where each network's scan resumes: every block before next_block has been scanned.
CREATE TABLE processor.cursors (
  network text PRIMARY KEY,
  chain_id bigint NOT NULL,
  next_block bigint NOT NULL CHECK (next_block >= 0),
  updated_at timestamptz NOT NULL
);

-- Hashes of recent scanned blocks (each range's last block): a parent hash that no longer
-- matches tells a reorganisation, and walking back through these finds where it forked.
CREATE TABLE processor.blocks (
  network text NOT NULL,
  number bigint NOT NULL CHECK (number >= 0),
  hash text NOT NULL CHECK (hash ~ '^0x[0-9a-f]{64}$'),
  parent_hash text NOT NULL CHECK (parent_hash ~ '^0x[0-9a-f]{64}$'),
  PRIMARY KEY (network, number)
);

-- The Live deposit addresses watched, on every network at once (an EVM address is the same on
-- each): from the payment's start until 7 days after its expiry, so late payments settle.
CREATE TABLE processor.watched_addresses (
  address text PRIMARY KEY CHECK (address ~ '^0x[0-9a-f]{40}$'),
  payment_id text NOT NULL,
  watch_from timestamptz NOT NULL,
  watch_until timestamptz NOT NULL
);
CREATE INDEX watched_addresses_until ON processor.watched_addresses (watch_until);

-- Token transfers to watched addresses, each once (network, transaction, log index). Blocks are
-- scanned only once final, so a transfer is recorded `final`; `removed` when a reorganisation
-- deeper than the finality rule took its block away; `seen` is kept for transfers shown before
-- they are final (not written yet).
CREATE TABLE processor.transfers (
  network text NOT NULL,
  tx_hash text NOT NULL CHECK (tx_hash ~ '^0x[0-9a-f]{64}$'),
  log_index integer NOT NULL CHECK (log_index >= 0),
  block_number bigint NOT NULL,
  block_hash text NOT NULL CHECK (block_hash ~ '^0x[0-9a-f]{64}$'),
  token text NOT NULL CHECK (token ~ '^0x[0-9a-f]{40}$'),
  from_address text NOT NULL CHECK (from_address ~ '^0x[0-9a-f]{40}$'),
  to_address text NOT NULL CHECK (to_address ~ '^0x[0-9a-f]{40}$'),
  value numeric(78, 0) NOT NULL CHECK (value > 0),
  status text NOT NULL CHECK (status IN ('seen', 'final', 'removed')),
  recorded_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (network, tx_hash, log_index)
);
CREATE INDEX transfers_to ON processor.transfers (to_address);
CREATE INDEX transfers_block ON processor.transfers (network, block_number);

-- A Live payment's deposit address, announced as the statement that assigns it commits (NOTIFY
-- is delivered on commit, never for a start rolled back): the processor listens, so it never
-- polls the payments table for new rows. A trigger, so every path that assigns an address
-- (the start's one-statement move and its locked one) announces it.
CREATE FUNCTION notify_deposit_address() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('deposit_addresses', json_build_object(
    'address', lower(NEW.deposit_address), 'payment_id', NEW.id,
    'started_at', coalesce(NEW.started_at, NEW.created_at), 'expires_at', NEW.expires_at)::text);
  RETURN NULL;
END;
$$;

CREATE TRIGGER payments_deposit_address_assigned AFTER UPDATE OF deposit_address ON payments
  FOR EACH ROW WHEN (NEW.livemode AND NEW.deposit_address IS NOT NULL AND OLD.deposit_address IS DISTINCT FROM NEW.deposit_address)
  EXECUTE FUNCTION notify_deposit_address();
CREATE TRIGGER payments_deposit_address_inserted AFTER INSERT ON payments
  FOR EACH ROW WHEN (NEW.livemode AND NEW.deposit_address IS NOT NULL)
  EXECUTE FUNCTION notify_deposit_address();

-- The books of Live money (issue 30, must have 3): every on-chain movement a payment's money made,
-- as the processor's signed notices report it, identified as the chain identifies it (network,
-- transaction, log index). A deposit is a `Transfer` to the payment's deposit address; the
-- forward's net and fee are its two shares; a gas top-up sends the network's native coin to a
-- deposit address; a sweep moves a stray token off one. The payment's spec fields (value_coin,
-- txid_out, merchant_received) keep their meaning; what reached the merchant is read from here.
CREATE TABLE chain_movements (
  id text PRIMARY KEY,
  business_id text NOT NULL REFERENCES businesses (id),
  livemode boolean NOT NULL,
  payment_id text NOT NULL REFERENCES payments (id),
  kind text NOT NULL CHECK (kind IN ('deposit', 'forward_net', 'forward_fee', 'gas_top_up', 'sweep')),
  network text NOT NULL,
  tx_hash lowercase_txid NOT NULL,
  -- The log's index in its block; null for a movement of the native coin (no log).
  log_index integer CHECK (log_index >= 0),
  block_number bigint CHECK (block_number >= 0),
  from_address text NOT NULL CHECK (from_address = lower(from_address)),
  to_address text NOT NULL CHECK (to_address = lower(to_address)),
  -- The token contract; null for the native coin.
  token text CHECK (token = lower(token)),
  coin text NOT NULL,
  -- In the token's (or native coin's) base units, with its decimals: exact, as the chain has it.
  value numeric(78, 0) NOT NULL CHECK (value >= 0),
  decimals smallint NOT NULL CHECK (decimals BETWEEN 0 AND 36),
  -- A share's or top-up's deposit (what it forwards): its transaction and log.
  deposit_tx_hash lowercase_txid,
  deposit_log_index integer,
  -- A deposit's place in its payment: `paid` (it paid it), `held`, `extra` (it came to a payment
  -- already paid, held or past its watch: forwarded, and for the merchant to look at).
  disposition text CHECK (disposition IN ('paid', 'held', 'extra')),
  needs_review boolean NOT NULL DEFAULT false,
  -- Milliseconds, as the service's clock writes them: the export's keyset cursor goes through a JavaScript Date.
  recorded_at timestamptz(3) NOT NULL,
  CHECK ((kind = 'deposit') = (disposition IS NOT NULL))
);
-- One row per movement, whoever reports it and however often; a transfer in any letter case is one.
CREATE UNIQUE INDEX chain_movements_once ON chain_movements (network, lower(tx_hash), coalesce(log_index, -1), kind);
CREATE INDEX chain_movements_payment ON chain_movements (payment_id, recorded_at);
-- The export by date range, per business and mode: one line per deposit.
CREATE INDEX chain_movements_books ON chain_movements (business_id, livemode, recorded_at, id) WHERE kind = 'deposit';

-- What reached the merchant's payout wallet for a payment, whatever its state (a held payment's
-- money, an accepted hold, an extra arrival): the sum of its `forward_net` rows, kept in the
-- statement that records them, so an order's `received` agrees with the ledger.
ALTER TABLE payments ADD COLUMN forwarded_net numeric(30, 6);

-- An arrival is a transfer (must have 4): "a transaction never used before" (spec 3) is read as a
-- transfer never used before, so one batched transaction paying two deposit addresses pays both.
ALTER TABLE payments ADD COLUMN txid_in_log_index integer;
DROP INDEX payments_txid_in;
CREATE UNIQUE INDEX payments_transfer_in ON payments (lower(txid_in), coalesce(txid_in_log_index, -1)) WHERE txid_in IS NOT NULL;

-- The notice log's retention (must have 7) reads what changed nothing by age.
CREATE INDEX processor_notices_unapplied_age ON processor_notices (received_at) WHERE outcome <> 'applied';

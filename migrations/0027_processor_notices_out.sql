-- Issue 22: what the processor needs to forward a deposit and tell the service about it.

-- The BIP-32 child index of a Live payment's deposit address under the account xpub, kept as the
-- start draws it: the processor derives the key that moves the money from it. Payments started
-- before this column have none; the processor finds theirs by deriving addresses up to the
-- sequence's last value once.
-- A domain, not a CHECK on payments: the write path's tables keep none (migration 0012).
CREATE DOMAIN deposit_index AS bigint CHECK (VALUE >= 0);
ALTER TABLE payments ADD COLUMN deposit_index deposit_index;

-- What was fixed at the payment's start, carried with each watched address so the processor never
-- reads the payments table again to forward: the child index, the payout wallet (lowercase; null
-- when the payment has none) and the fee in basis points.
ALTER TABLE processor.watched_addresses
  ADD COLUMN deposit_index bigint CHECK (deposit_index >= 0),
  ADD COLUMN payout_wallet text CHECK (payout_wallet ~ '^0x[0-9a-f]{40}$'),
  ADD COLUMN fee_bps integer CHECK (fee_bps BETWEEN 0 AND 10000);

-- The announcement carries them too (payload grows additively).
CREATE OR REPLACE FUNCTION notify_deposit_address() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('deposit_addresses', json_build_object(
    'address', lower(NEW.deposit_address), 'payment_id', NEW.id,
    'started_at', coalesce(NEW.started_at, NEW.created_at), 'expires_at', NEW.expires_at,
    'deposit_index', NEW.deposit_index, 'payout_wallet', lower(NEW.payout_wallet), 'fee_bps', NEW.fee_bps)::text);
  RETURN NULL;
END;
$$;

-- The signed notices the processor sends the service, each once by its id, delivered at least
-- once: retried with a growing wait until the service answers 2xx (or refuses it for good, 4xx
-- other than 408/429, which is kept with the answer for the operator).
CREATE TABLE processor.notices_out (
  id text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 200),
  kind text NOT NULL CHECK (kind IN ('deposit.confirmed', 'settlement.completed')),
  body jsonb NOT NULL,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'refused')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  last_answer text,
  created_at timestamptz NOT NULL,
  delivered_at timestamptz
);
CREATE INDEX notices_out_due ON processor.notices_out (next_attempt_at) WHERE state = 'pending';

-- Each final transfer's deposit.confirmed is enqueued once: the transfer names its notice.
ALTER TABLE processor.transfers ADD COLUMN confirmed_notice_id text REFERENCES processor.notices_out (id);
CREATE INDEX transfers_unconfirmed ON processor.transfers (network) WHERE status = 'final' AND confirmed_notice_id IS NULL;

-- Issue 21, "Hardening".
--
-- 1. Transaction ids are hex, whose letter case the chain ignores: 0xab… and 0xAB… are one
-- transaction. They are stored lowercased from now on (the domain checks it), and "a transaction never used
-- before" is a unique index on the lowercased id, so two notices, in any case and at the same
-- time, cannot both pay with one transaction.
--
-- Rows written before this may name one transaction in two cases on two payments: it paid (or
-- held) both. A paid payment never becomes unpaid (spec 3 rule 6), so their states stay. The
-- earliest of them (paid first, then created first) keeps the transaction; each later one keeps
-- its state but no longer stores it (as a hold for a reused transaction never has), and its
-- account's activity records why, by the service, naming the transaction and the payment it
-- paid first, for the merchant to look into.
WITH ranked AS (
  SELECT id, business_id, livemode, txid_in,
         first_value(id) OVER same AS paid_first,
         row_number() OVER same AS turn
  FROM payments
  WHERE txid_in IS NOT NULL
  WINDOW same AS (PARTITION BY lower(txid_in) ORDER BY paid_at NULLS LAST, created_at, id)
), reused AS (
  UPDATE payments AS p SET txid_in = NULL
  FROM ranked AS r
  WHERE p.id = r.id AND r.turn > 1
  RETURNING p.id, r.business_id, r.livemode, r.txid_in, r.paid_first
)
INSERT INTO activity (business_id, livemode, actor, action, subject_id, details, created_at)
SELECT business_id, livemode, 'service', 'payment.txid_reused', id,
       jsonb_build_object('txid', lower(txid_in), 'paid_first', paid_first), now()
FROM reused;

UPDATE payments SET txid_in = lower(txid_in) WHERE txid_in <> lower(txid_in);
UPDATE payments SET txid_out = lower(txid_out) WHERE txid_out <> lower(txid_out);
-- A domain rather than a table CHECK, as the write path's other rules (migration 0012).
CREATE DOMAIN lowercase_txid AS text CHECK (VALUE = lower(VALUE));
DROP INDEX payments_txid_in;
ALTER TABLE payments ALTER COLUMN txid_in TYPE lowercase_txid, ALTER COLUMN txid_out TYPE lowercase_txid;
CREATE UNIQUE INDEX payments_txid_in ON payments (lower(txid_in)) WHERE txid_in IS NOT NULL;

-- 2. A payout wallet change asked for in the dashboard waits here until its owner confirms it,
-- having seen the old and new address in full and signed in within the last minutes. One per
-- owner and business (a new ask replaces the older); it outlives the session, so signing in
-- again on the way to the confirmation neither loses it nor applies it.
CREATE TABLE payout_wallet_changes (
  business_id   text NOT NULL REFERENCES businesses (id),
  person_id     text NOT NULL REFERENCES people (id) ON DELETE CASCADE,
  -- The new address; null: the account is to have no payout wallet.
  payout_wallet text,
  requested_at  timestamptz NOT NULL,
  PRIMARY KEY (business_id, person_id)
);

-- Every owner is mailed when the payout wallet changes (in the dashboard or by the operator).
ALTER DOMAIN mail_kind DROP CONSTRAINT mail_kind_check;
ALTER DOMAIN mail_kind ADD CONSTRAINT mail_kind_check CHECK (VALUE IN ('webhook_endpoint_added', 'sign_in_link', 'payout_wallet_changed'));

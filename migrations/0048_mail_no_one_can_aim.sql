-- Mail no one can aim (issue 31). Why a held mail is not sent: `no_smtp` (SMTP_URL unset: the
-- operator reads it in `outbox list`), `test_mode` (a Test payment's buyer mail to an address
-- that is none of the business's people), `address_limit` (a Live buyer's address that had its
-- hour's mail already, across all businesses). Null for mail that is queued, sent or failed.
-- A domain, not a CHECK: the outbox is on the payment write path (migration 0034).
CREATE DOMAIN mail_held_because AS text CHECK (VALUE IN ('no_smtp', 'test_mode', 'address_limit'));
ALTER TABLE outbox ADD COLUMN held_because mail_held_because;
UPDATE outbox SET held_because = 'no_smtp' WHERE status = 'held';
-- The hour's buyer mail to one address, counted when the next is written.
CREATE INDEX outbox_buyer_recent ON outbox (recipient, created_at) WHERE kind IN ('payment_receipt', 'payment_held');

-- Issue 23: receipts and held notices by mail. The buyer gets a receipt when a payment is paid
-- and a notice when it is held, in the language of the payer page they started it on; a held
-- payment is mailed to the business's owners and developers, each of whom may turn that off.

-- The payer page's language when the buyer started (Accept-Language, 'en' or 'de'); null:
-- started elsewhere (the API), mailed in English. A domain, not a CHECK: payments is on the write path.
CREATE DOMAIN payer_language AS text CHECK (VALUE ~ '^[a-z]{2}$');
ALTER TABLE payments ADD COLUMN payer_language payer_language;

ALTER DOMAIN mail_kind DROP CONSTRAINT mail_kind_check;
ALTER DOMAIN mail_kind ADD CONSTRAINT mail_kind_check CHECK (VALUE IN ('webhook_endpoint_added', 'sign_in_link', 'payout_wallet_changed',
  'payment_receipt', 'payment_held', 'payment_held_staff'));

-- Mail is multipart now: the HTML alternative of `body` (rendered by the same renderer), and the
-- payment a mail is about, so erasing the buyer deletes the mail that names them.
ALTER TABLE outbox ADD COLUMN body_html text;
ALTER TABLE outbox ADD COLUMN payment_id text;
CREATE INDEX outbox_payment ON outbox (payment_id) WHERE payment_id IS NOT NULL;
-- The outbox is on the payment write path now (paid and held moves write it): no CHECK left to
-- run on each write, as migration 0012 did for the others. queueMail writes a body or a sealed
-- body, never both.
ALTER TABLE outbox DROP CONSTRAINT outbox_check;

-- A person's choice, per business, of the mail they get about it; no row: the default (on).
CREATE TABLE notification_preferences (
  person_id         text NOT NULL REFERENCES people (id) ON DELETE CASCADE,
  business_id       text NOT NULL REFERENCES businesses (id),
  held_payment_mail boolean NOT NULL,
  updated_at        timestamptz NOT NULL,
  PRIMARY KEY (business_id, person_id)
);

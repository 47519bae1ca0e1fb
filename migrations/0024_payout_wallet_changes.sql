-- A payout wallet change is deliberate and known (issue 21): an owner's new address waits here
-- until they confirm it (seeing it in full beside the old one) with a recent sign-in; then every
-- owner is mailed. A change not confirmed within its expiry does nothing.
CREATE TABLE payout_wallet_changes (
  id            text PRIMARY KEY,
  business_id   text NOT NULL REFERENCES businesses (id),
  person_id     text NOT NULL REFERENCES people (id),
  old_wallet    text,
  new_wallet    text,
  created_at    timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL,
  confirmed_at  timestamptz
);
CREATE INDEX payout_wallet_changes_business ON payout_wallet_changes (business_id, created_at);

ALTER DOMAIN mail_kind DROP CONSTRAINT mail_kind_check;
ALTER DOMAIN mail_kind ADD CONSTRAINT mail_kind_check CHECK (VALUE IN ('webhook_endpoint_added', 'sign_in_link', 'payout_wallet_changed'));

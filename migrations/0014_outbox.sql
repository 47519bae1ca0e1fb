-- Mail to people (spec 4.4: a Live webhook endpoint added by a secret key; dashboard sign-in
-- links): an outbox written in the same transaction as what the mail tells of, one row per
-- recipient, sent by a pg-boss job (queue `mail`) over SMTP when SMTP_URL is set. Mail written
-- while SMTP_URL is unset is `held`: it stays here, and the CLI's `outbox list` shows it.
CREATE DOMAIN mail_kind AS text CHECK (VALUE IN ('webhook_endpoint_added', 'sign_in_link'));
CREATE DOMAIN mail_status AS text CHECK (VALUE IN ('held', 'queued', 'sent', 'failed'));

CREATE TABLE outbox (
  id              text PRIMARY KEY,
  -- The business the mail is about (null for a person's own sign-in link).
  business_id     text REFERENCES businesses (id),
  kind            mail_kind NOT NULL,
  recipient       lowercase_email NOT NULL,
  subject         text NOT NULL,
  -- Plain text; a body carrying a secret (a sign-in link) is sealed like webhook signing secrets
  -- instead, and erased once the mail is sent or has failed.
  body            text,
  body_sealed     bytea,
  status          mail_status NOT NULL,
  attempts        integer NOT NULL DEFAULT 0,
  last_error      text,
  -- Not worth sending after this (a sign-in link's expiry); null: no limit.
  send_before     timestamptz,
  created_at      timestamptz NOT NULL,
  last_attempt_at timestamptz,
  finished_at     timestamptz,
  CHECK (body IS NULL OR body_sealed IS NULL)
);
-- The CLI's list, all of it or one business's, newest first; retention by age.
CREATE INDEX outbox_created ON outbox (created_at DESC, id DESC);
CREATE INDEX outbox_business ON outbox (business_id, created_at DESC, id DESC) WHERE business_id IS NOT NULL;

-- How many sign-in links a person was sent lately (the dashboard's form sends at most a few).
CREATE INDEX sign_in_links_person ON sign_in_links (person_id, created_at);

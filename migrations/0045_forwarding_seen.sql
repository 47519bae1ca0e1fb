-- Issue 30, must-have 5: failures seen where people look. Each processor.status now says, per
-- network, how its forwarding goes; the service keeps the latest word (as processor_networks
-- keeps the rest), so the dashboard shows a forward that failed or is late, and mails the operator.

-- Null: the processor said nothing of forwarding (one that does not forward, or an older one).
ALTER TABLE processor_networks ADD COLUMN forwarding_healthy boolean;
-- A short sentence of the processor's when forwarding is not healthy, URLs cut to their origin.
ALTER TABLE processor_networks ADD COLUMN forwarding_problem text;

-- The forwards the latest status of a network named as failed, or pending longer than the bound
-- (src/processor/forwarding/forwarding-health.ts): replaced whole by each newer status of the
-- network, so a delay clears by itself once the next status no longer names it. At most 200 per network.
CREATE TABLE processor_forward_delays (
  network text NOT NULL CHECK (network IN ('polygon', 'base', 'ethereum')),
  payment_id text NOT NULL,
  deposit_address text NOT NULL,
  state text NOT NULL CHECK (state IN ('failed', 'pending')),
  -- When the forward was written (the deposit turned final): waiting since then.
  since timestamptz NOT NULL,
  reason text
);
CREATE INDEX processor_forward_delays_payment ON processor_forward_delays (payment_id);
CREATE INDEX processor_forward_delays_network ON processor_forward_delays (network);

-- One mail to OPERATOR_EMAIL per cause (network and kind of failure) per hour, whichever process
-- receives the status: the row is taken by a conditional upsert in the mail's own transaction.
CREATE TABLE operator_alerts (
  cause text PRIMARY KEY,
  mailed_at timestamptz NOT NULL
);

ALTER DOMAIN mail_kind DROP CONSTRAINT mail_kind_check;
ALTER DOMAIN mail_kind ADD CONSTRAINT mail_kind_check CHECK (VALUE IN ('webhook_endpoint_added', 'sign_in_link', 'payout_wallet_changed',
  'payment_receipt', 'payment_held', 'payment_held_staff', 'operator_alert'));

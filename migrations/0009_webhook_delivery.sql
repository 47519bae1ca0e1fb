-- Webhook delivery (spec 6.1, 6.3): every attempt in the log, test sends, manual sends.

-- A delivery is an event to send to one endpoint ('event'), or a test send ('test') whose made-up
-- event exists nowhere else: its type and exact body are kept on the delivery itself.
ALTER TABLE webhook_deliveries
  ADD COLUMN kind text NOT NULL DEFAULT 'event' CHECK (kind IN ('event', 'test')),
  ADD COLUMN event_type text,
  ADD COLUMN body text,
  ADD COLUMN manual_attempts integer NOT NULL DEFAULT 0,
  -- Orders the log when deliveries share a creation time (one event, several endpoints). Added
  -- without a volatile default, so the table is not rewritten; older rows keep null.
  ADD COLUMN seq bigint;
CREATE SEQUENCE webhook_deliveries_seq OWNED BY webhook_deliveries.seq;
ALTER TABLE webhook_deliveries ALTER COLUMN seq SET DEFAULT nextval('webhook_deliveries_seq');

-- Every request the service made for a delivery: automatic attempts 1 to 7, retry now, resend, test.
CREATE TABLE webhook_delivery_attempts (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  delivery_id      text NOT NULL,
  endpoint_id      text NOT NULL,
  trigger          text NOT NULL CHECK (trigger IN ('automatic', 'retry_now', 'resend', 'test')),
  number           integer,
  url              text NOT NULL,
  sent_at          timestamptz NOT NULL,
  duration_ms      integer NOT NULL,
  succeeded        boolean NOT NULL,
  status_code      integer,
  error            text,
  response_excerpt text
);
CREATE INDEX webhook_delivery_attempts_delivery ON webhook_delivery_attempts (delivery_id, id);

-- The log: an endpoint's latest deliveries.
DROP INDEX webhook_deliveries_endpoint;
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at DESC, seq DESC NULLS LAST);

-- Pending deliveries by due time: the sweep that re-queues one whose job was lost.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';

-- Retention: finished deliveries after 30 days, removed endpoints' history after 30 days.
CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (finished_at) WHERE finished_at IS NOT NULL;
CREATE INDEX webhook_endpoints_removed ON webhook_endpoints (deleted_at) WHERE deleted_at IS NOT NULL;

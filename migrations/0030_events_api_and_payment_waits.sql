-- Issue 24: the events of a business and mode over the API, and waiting for a payment to change.

-- GET /v1/events: newest first within one business and mode (its filters narrow this walk).
CREATE INDEX events_list ON events (business_id, livemode, created_at DESC, id DESC);

-- Every change of a payment's status, from any process (a move of the state machine, a person
-- with psql), tells every server at its commit: waiters for that payment wake at once. The
-- payload is the payment's id; NOTIFY folds repeats of one id within a transaction.
CREATE FUNCTION notify_payment_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('payment_changed', NEW.id);
  RETURN NULL;
END;
$$;

CREATE TRIGGER payments_status_changed AFTER UPDATE OF status ON payments
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION notify_payment_changed();

-- A sweep in the books (issue 30, must have 3). Once a sweep's transfer is final, the processor
-- re-reads its receipts and reports what they moved (`sweep.completed`); the service records the
-- sweep and its gas top-up as movements of the payment. `reported_at` is when that notice was
-- enqueued (in the same transaction), so each sweep is reported once.
ALTER TABLE processor.sweeps ADD COLUMN reported_at timestamptz;
CREATE INDEX sweeps_unreported ON processor.sweeps (network) WHERE state = 'mined' AND reported_at IS NULL;

ALTER TABLE processor.notices_out DROP CONSTRAINT notices_out_kind_check;
ALTER TABLE processor.notices_out ADD CONSTRAINT notices_out_kind_check
  CHECK (kind IN ('deposit.confirmed', 'settlement.completed', 'sweep.completed'));

-- The export's lines: each arrival, and each sweep (money that left a deposit address outside a forward).
DROP INDEX chain_movements_books;
CREATE INDEX chain_movements_books ON chain_movements (business_id, livemode, recorded_at, id) WHERE kind IN ('deposit', 'sweep');

-- Issue 23, must have 4: the rest of an underpayment. A held underpaid payment's merchant may ask
-- the buyer for the rest: a new payment on the same order for the difference, which names the
-- held payment it completes (docs/remainders.md). At most one remainder of a payment is open,
-- pending or paid at a time, so asking twice cannot make two (an expired one may be asked again).
ALTER TABLE payments ADD COLUMN remainder_of text REFERENCES payments (id);

CREATE UNIQUE INDEX payments_one_remainder ON payments (remainder_of)
  WHERE remainder_of IS NOT NULL AND status IN ('open', 'pending', 'paid');

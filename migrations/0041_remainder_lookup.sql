-- The payer page reads the rest asked for a payment whatever its status (an expired one too):
-- payments_one_remainder (0035) covers only open, pending and paid ones, so without this index
-- each payer page would scan the payments table. Partial: only remainders name another payment.
CREATE INDEX payments_remainder_of ON payments (remainder_of, created_at DESC) WHERE remainder_of IS NOT NULL;

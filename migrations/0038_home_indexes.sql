-- The dashboard's home page (issue 23): what was paid this week, by the time it was paid, and the
-- held payments to review. Partial indexes, so each reads only the rows it counts (the payment
-- lists' index would read every payment made in the week), and the many open and expired
-- payments do not pay for them.
CREATE INDEX payments_paid_at ON payments (business_id, livemode, paid_at) INCLUDE (currency, amount_minor) WHERE status = 'paid';
CREATE INDEX payments_held ON payments (business_id, livemode, created_at DESC, id DESC) WHERE status = 'held';

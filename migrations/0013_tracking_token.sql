-- A payment link's tracking page is for people who should see its status but not pay it or see
-- who pays: its address carries a token of its own, not the payment's id (which opens the payer
-- page, with the buyer's email). Links made before this get one now.
ALTER TABLE payments ADD COLUMN tracking_token text;
UPDATE payments SET tracking_token = 'trk_' || replace(gen_random_uuid()::text, '-', '') WHERE source = 'payment_link';
CREATE UNIQUE INDEX payments_tracking_token_key ON payments (tracking_token) WHERE tracking_token IS NOT NULL;

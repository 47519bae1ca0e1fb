-- Transaction ids compared as the chain does (issue 21): a hex id is the same in any letter case,
-- so they are stored lowercase (the notices lowercase them before anything else) and "a
-- transaction never used before" (spec 3) is unique on that value. Payments that shared one
-- transaction only through its letter case (possible before) keep it on the earliest paid one;
-- the later ones lose it here (the notices that named it stay in processor_notices).
WITH ranked AS (
  SELECT id, row_number() OVER (PARTITION BY lower(txid_in) ORDER BY paid_at NULLS LAST, created_at, id) AS place
  FROM payments WHERE txid_in IS NOT NULL
)
UPDATE payments p SET txid_in = CASE WHEN ranked.place = 1 THEN lower(p.txid_in) END
FROM ranked WHERE ranked.id = p.id AND (p.txid_in <> lower(p.txid_in) OR ranked.place > 1);
UPDATE payments SET txid_out = lower(txid_out) WHERE txid_out <> lower(txid_out);

DROP INDEX payments_txid_in;
CREATE UNIQUE INDEX payments_txid_in ON payments (lower(txid_in)) WHERE txid_in IS NOT NULL;
ALTER TABLE payments ADD CONSTRAINT payments_txids_lowercase CHECK (txid_in = lower(txid_in) AND txid_out = lower(txid_out));

-- A payment's timeline in the dashboard reads the processor's notices about it (issue 13).
CREATE INDEX processor_notices_payment ON processor_notices (payment_id, received_at) WHERE payment_id IS NOT NULL;

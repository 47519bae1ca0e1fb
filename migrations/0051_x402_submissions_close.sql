-- What a review of issue 33 found (docs/x402.md, "What the processor does"): a submission whose
-- own transaction will not carry the authorization (another transaction carried it, the payer
-- canceled it, it expired unmined, or ours reverted) is `closing` until the gas wallet's nonce it
-- took is spent: by its own transaction mined, or by a 0-value transfer to itself under that
-- nonce, signed and stored before it is broadcast, as every gas-wallet transaction. Left unsent,
-- that nonce would stall every later gas-wallet transaction of the network, forwards included.
-- Then `final` (the authorization carried) or `failed` (refused: nothing moved), the gas spent
-- reported for the books either way.
ALTER TABLE processor.x402_submissions DROP CONSTRAINT x402_submissions_state_check;
ALTER TABLE processor.x402_submissions ADD CONSTRAINT x402_submissions_state_check
  CHECK (state IN ('refused', 'signed', 'broadcast', 'mined', 'closing', 'final', 'failed'));

-- The transaction not the processor's that carried the authorization (anyone holding it may
-- submit it): its Transfer is in block_number, block_hash and transfer_log_index. It may have
-- carried it before the processor signed anything: then the row has no transaction of its own.
ALTER TABLE processor.x402_submissions ADD COLUMN carried_by text;
ALTER TABLE processor.x402_submissions DROP CONSTRAINT x402_submissions_check;
ALTER TABLE processor.x402_submissions ADD CONSTRAINT x402_submissions_raw_check
  CHECK (CASE WHEN state = 'refused' THEN raw IS NULL ELSE raw IS NOT NULL OR (state = 'final' AND carried_by IS NOT NULL) END);

DROP INDEX processor.x402_submissions_open;
CREATE INDEX x402_submissions_open ON processor.x402_submissions (network) WHERE state IN ('signed', 'broadcast', 'mined', 'closing');

-- Issue 30, must have 1: a forward (and a sweep) is final only once its mined receipts hold the
-- exact movements it was for. What was verified is kept, so the settlement (and the ledger built on
-- it) reads each movement from the chain's own record, never from what was asked.
--
-- A movement, as stored in these jsonb arrays (numbers that may exceed 2^53 as decimal strings):
--   {"kind": "net" | "fee" | "gas" | "sweep", "tx_hash": "0x…", "log_index": 3 | null,
--    "block_number": "123", "block_hash": "0x…", "from": "0x…", "to": "0x…",
--    "token": "0x…" | null, "value": "29550000"}
-- `gas` is the gas wallet's native top-up of a deposit address (no log: token and log_index null).
-- Read them through verifiedMovements (src/processor/forwarding/movements.ts).

-- `ineffective`: mined with status success, yet without the movements it was sent for (a batch
-- contract address with no code "succeeds" and moves nothing); its nonce is spent, `failure` says
-- what was missing, and the forward is tried again.
ALTER TABLE processor.forward_transactions DROP CONSTRAINT forward_transactions_state_check;
ALTER TABLE processor.forward_transactions ADD CONSTRAINT forward_transactions_state_check
  CHECK (state IN ('signed', 'broadcast', 'mined', 'final', 'reverted', 'dropped', 'ineffective'));
ALTER TABLE processor.forward_transactions ADD COLUMN failure text;
-- What its receipt showed (mined or final), verified against what it was sent for.
ALTER TABLE processor.forward_transactions ADD COLUMN movements jsonb;
-- Every movement of a final forward (its shares and the gas top-ups that paid for them), written in
-- the database transaction that makes it final and enqueues settlement.completed.
ALTER TABLE processor.forwards ADD COLUMN movements jsonb;
-- A mined sweep's top-up and transfer, as its receipts showed them.
ALTER TABLE processor.sweeps ADD COLUMN movements jsonb;

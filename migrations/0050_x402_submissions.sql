-- Live payments over HTTP 402 (issue 33, docs/x402.md): the processor submits a buyer's EIP-3009
-- authorization, claimed by the service (x402_authorizations, state `verified`), from its gas
-- wallet to the payment's deposit address. One submission per authorization, written before
-- anything is signed: `refused` when the chain would refuse it (nothing signed, no nonce spent,
-- `failure` is the protocol's reason); else the transaction is stored signed (raw bytes and hash,
-- its nonce taken from processor.sender_nonces in the same database transaction), then
-- `broadcast`, `mined` (its receipt showed the buyer's Transfer to the deposit address),
-- `final`, or `failed` (reverted, moved nothing, or expired unmined: `failure` says which).
CREATE TABLE processor.x402_submissions (
  id serial PRIMARY KEY,
  authorization_id text NOT NULL UNIQUE,
  payment_id text NOT NULL,
  network text NOT NULL,
  token text NOT NULL,
  payer text NOT NULL,
  pay_to text NOT NULL,
  value numeric(78, 0) NOT NULL,
  valid_before numeric(78, 0) NOT NULL,
  state text NOT NULL CHECK (state IN ('refused', 'signed', 'broadcast', 'mined', 'final', 'failed')),
  failure text,
  -- The protocol's error reason told to the buyer when refused or failed.
  reason text,
  sender text,
  nonce bigint,
  gas bigint,
  max_fee_per_gas numeric(78, 0),
  max_priority_fee_per_gas numeric(78, 0),
  raw text,
  tx_hash text,
  replaced_hashes text[] NOT NULL DEFAULT '{}',
  block_number bigint,
  block_hash text,
  -- The chain's head when it was signed: where to look for the authorization's use by a transaction not ours.
  signed_block bigint,
  -- The buyer's EIP-3009 nonce (with payer and token: the authorization as the chain names it).
  authorization_nonce text NOT NULL,
  -- What the submission cost the gas wallet, from its receipt (gas used × effective price), in wei.
  gas_cost numeric(78, 0),
  -- The buyer's Transfer as the receipt showed it.
  transfer_log_index integer,
  created_at timestamptz NOT NULL,
  broadcast_at timestamptz,
  updated_at timestamptz NOT NULL,
  CHECK ((state = 'refused') = (raw IS NULL))
);
CREATE INDEX x402_submissions_open ON processor.x402_submissions (network) WHERE state IN ('signed', 'broadcast', 'mined');

-- The processor hears of a claim as it commits (and catches up each pass from the index of 0049).
CREATE FUNCTION notify_x402_authorization() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.livemode AND NEW.state = 'verified' THEN
    PERFORM pg_notify('x402_authorizations', NEW.network);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER x402_authorizations_notify AFTER INSERT ON x402_authorizations
  FOR EACH ROW EXECUTE FUNCTION notify_x402_authorization();

-- What the processor tells the service of a submission.
ALTER TABLE processor.notices_out DROP CONSTRAINT notices_out_kind_check;
ALTER TABLE processor.notices_out ADD CONSTRAINT notices_out_kind_check
  CHECK (kind IN ('deposit.confirmed', 'settlement.completed', 'sweep.completed', 'x402.submitted', 'x402.refused', 'x402.final'));

-- The gas the processor's gas wallet paid to submit a buyer's authorization, in the books.
ALTER TABLE chain_movements DROP CONSTRAINT chain_movements_kind_check;
ALTER TABLE chain_movements ADD CONSTRAINT chain_movements_kind_check
  CHECK (kind IN ('deposit', 'forward_net', 'forward_fee', 'gas_top_up', 'sweep', 'x402_gas'));

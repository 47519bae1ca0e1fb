-- Deposit addresses are EVM addresses: the same whatever their letter case (EIP-55 case is a
-- checksum), so notices find them case-insensitively.
DROP INDEX payments_deposit_address;
CREATE UNIQUE INDEX payments_deposit_address ON payments (lower(deposit_address)) WHERE deposit_address IS NOT NULL;

-- A refused notice keeps only a digest of what was sent: anyone can post to the endpoint.
ALTER TABLE processor_notices ADD COLUMN body_sha256 text, ADD COLUMN body_length integer;
ALTER TABLE processor_notices ALTER COLUMN body DROP NOT NULL;

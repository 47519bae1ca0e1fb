-- An approval approves an amount, not a string of arguments (issue 31): the amount and currency
-- the call would create, resolved when it was asked for (a checkout's price, a link's amount).
-- A retry that resolves to another amount is another call. A person may withdraw an approval
-- nobody has used yet.
ALTER TABLE agent_approvals ADD COLUMN amount_minor bigint, ADD COLUMN currency text;
ALTER TABLE agent_approvals DROP CONSTRAINT agent_approvals_status_check;
ALTER TABLE agent_approvals ADD CONSTRAINT agent_approvals_status_check CHECK (status IN ('pending', 'approved', 'declined', 'withdrawn', 'used'));

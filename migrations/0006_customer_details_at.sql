-- When the order whose details a customer holds was created: a later start of an older order
-- leaves them alone (spec 2.3 rule 3) without looking through the customer's orders.
ALTER TABLE customers ADD COLUMN details_at timestamptz;
UPDATE customers SET details_at = created_at;

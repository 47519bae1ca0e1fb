-- A customer's last_order_at is the creation time of its latest order: read from the orders
-- themselves (an order moving between customers moves it too), no longer stored.
ALTER TABLE customers DROP COLUMN last_order_at;

-- The write path under load.
--
-- Businesses are archived, never deleted, so a foreign key to them guards nothing on the hot
-- tables, while every insert share-locks the one business row: concurrent creates of one
-- business then serialise through MultiXact. The same holds for deliveries, whose endpoint rows
-- are soft-deleted and whose event is written in the same transaction.
ALTER TABLE payments DROP CONSTRAINT payments_business_id_fkey;
ALTER TABLE orders DROP CONSTRAINT orders_business_id_fkey;
ALTER TABLE customers DROP CONSTRAINT customers_business_id_fkey;
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_endpoint_id_fkey;
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_event_id_fkey;

-- Room on each page for updated row versions, so status changes can be HOT updates.
ALTER TABLE payments SET (fillfactor = 80);
ALTER TABLE orders SET (fillfactor = 80);
ALTER TABLE webhook_deliveries SET (fillfactor = 80);

-- Event bodies (a few KB of JSON) stay inline and uncompressed: compressing each one costs
-- more than the space it saves.
ALTER TABLE events SET (toast_tuple_target = 8160);

-- The private note people keep on a customer in the dashboard (issue 13): in a table of its own,
-- which no API, MCP or webhook read joins, so it cannot leak into them; erasing the customer
-- deletes it (it may hold their details).
CREATE TABLE customer_notes (
  customer_id text PRIMARY KEY,
  business_id text NOT NULL,
  livemode boolean NOT NULL,
  note text NOT NULL,
  updated_at timestamptz NOT NULL,
  updated_by text
);

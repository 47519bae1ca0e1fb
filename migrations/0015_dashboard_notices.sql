-- What a dashboard form has to tell the page its redirect opens (POST, 303, GET): a new key's
-- secret, who was added to the team. Bound to the browser's session and the page's place, sealed
-- with the service's secret box, deleted when read, unreadable after a few minutes, and gone with
-- the session.
CREATE TABLE dashboard_notices (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  session_id_hash bytea NOT NULL REFERENCES dashboard_sessions (id_hash) ON DELETE CASCADE,
  place           text NOT NULL,
  body_sealed     bytea NOT NULL,
  created_at      timestamptz NOT NULL,
  expires_at      timestamptz NOT NULL
);
CREATE INDEX dashboard_notices_session_place ON dashboard_notices (session_id_hash, place, id);
CREATE INDEX dashboard_notices_expires_at ON dashboard_notices (expires_at);

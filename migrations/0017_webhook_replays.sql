-- Replaying an endpoint's failed deliveries in one action (issue 13): a person picks a time, and
-- every delivery to the endpoint that had failed since then is sent once more by a background
-- job, as a resend. The deliveries are fixed when it is asked for (so its count is exact), and
-- each one records its outcome, so the page shows the progress and a job that runs again goes on
-- where the last one stopped.
CREATE TABLE webhook_replays (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  business_id  text NOT NULL REFERENCES businesses (id),
  livemode     boolean NOT NULL,
  endpoint_id  text NOT NULL REFERENCES webhook_endpoints (id),
  since        timestamptz NOT NULL,
  -- Who asked, as the account activity names them (person:per_…, operator).
  requested_by text NOT NULL,
  status       text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done')),
  total        integer NOT NULL,
  done         integer NOT NULL DEFAULT 0,
  succeeded    integer NOT NULL DEFAULT 0,
  -- No longer failed when its turn came (resent meanwhile), or its endpoint removed.
  skipped      integer NOT NULL DEFAULT 0,
  created_at   timestamptz NOT NULL,
  finished_at  timestamptz
);
CREATE INDEX webhook_replays_endpoint ON webhook_replays (endpoint_id, created_at DESC);
CREATE INDEX webhook_replays_created ON webhook_replays (created_at);

-- The deliveries of a replay, in the order they are sent. No reference to webhook_deliveries:
-- the log's retention deletes deliveries on its own schedule, and a missing one is skipped.
CREATE TABLE webhook_replay_deliveries (
  replay_id   bigint NOT NULL REFERENCES webhook_replays (id) ON DELETE CASCADE,
  position    integer NOT NULL,
  delivery_id text NOT NULL,
  -- Taken by a worker (one taken long ago belonged to a worker that stopped: taken again).
  claimed_at  timestamptz,
  outcome     text CHECK (outcome IN ('succeeded', 'failed', 'skipped')),
  PRIMARY KEY (replay_id, position)
);
CREATE INDEX webhook_replay_deliveries_open ON webhook_replay_deliveries (replay_id, position) WHERE outcome IS NULL;

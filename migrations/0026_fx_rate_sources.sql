-- Issue 22, must-have 7: exchange rates from a feed (the ECB's daily reference rates), with the
-- operator's rate as an override. fx_rates now holds the feed's rate of each currency, and its
-- reference time: the day the feed says the rate is of, never when it was fetched. The rates
-- 0003 wrote are placeholders of no known time (reference_at NULL): Test mode uses them, Live
-- refuses them until the feed or the operator gives a rate.
ALTER TABLE fx_rates ADD COLUMN reference_at timestamptz;
UPDATE fx_rates SET reference_at = updated_at WHERE currency = 'USD';

-- The operator's rate of a currency (`rates set`): it wins over the feed's while it is set, and
-- its age is counted from when it was set. `rates clear` deletes it.
CREATE TABLE fx_rate_overrides (
  currency     text PRIMARY KEY CHECK (currency IN ('EUR', 'GBP', 'CAD', 'AUD')),
  usd_per_unit numeric(18, 8) NOT NULL CHECK (usd_per_unit > 0),
  set_at       timestamptz NOT NULL
);

-- Until now `rates set` wrote fx_rates itself: a rate changed after 0003 wrote its placeholders
-- (all migrations of a run share one transaction time, before the migrator records 0003) is an
-- operator's, and stays theirs as an override.
INSERT INTO fx_rate_overrides (currency, usd_per_unit, set_at)
SELECT r.currency, r.usd_per_unit, r.updated_at
FROM fx_rates r
WHERE r.currency IN ('EUR', 'GBP', 'CAD', 'AUD')
  AND r.updated_at > (SELECT m.timestamp::timestamptz FROM kysely_migration m WHERE m.name = '0003_payments_core');

-- The feed's last fetch, for the operator (`rates list`): when, from where, and what came of it.
-- One row; the log keeps the history.
CREATE TABLE fx_rate_last_fetch (
  feed       text PRIMARY KEY,
  url        text NOT NULL,
  fetched_at timestamptz NOT NULL,
  ok         boolean NOT NULL,
  outcome    text NOT NULL
);

-- The time zone a person reads the dashboard's times in (issue 13); none: UTC.
ALTER TABLE people ADD COLUMN time_zone text;

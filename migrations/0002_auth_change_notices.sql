-- Servers cache verified credentials for a few seconds. Any change to keys, businesses or roles,
-- from any process (server, CLI, dashboard, a person with psql), tells every server to forget
-- them at once.
CREATE FUNCTION notify_auth_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('auth_changed', TG_TABLE_NAME);
  RETURN NULL;
END;
$$;

CREATE TRIGGER api_keys_auth_changed AFTER UPDATE OR DELETE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION notify_auth_changed();
CREATE TRIGGER businesses_auth_changed AFTER UPDATE OR DELETE ON businesses
  FOR EACH STATEMENT EXECUTE FUNCTION notify_auth_changed();
CREATE TRIGGER memberships_auth_changed AFTER INSERT OR UPDATE OR DELETE ON memberships
  FOR EACH STATEMENT EXECUTE FUNCTION notify_auth_changed();

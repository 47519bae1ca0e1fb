-- Servers keep a dashboard page's session, membership and business for a few seconds (as they
-- keep verified keys): a session ended (signed out, deleted) or a person changed (their time
-- zone) tells every server to forget them at once, as changes to keys, businesses and roles do.
CREATE TRIGGER dashboard_sessions_auth_changed AFTER UPDATE OR DELETE ON dashboard_sessions
  FOR EACH STATEMENT EXECUTE FUNCTION notify_auth_changed();
CREATE TRIGGER people_auth_changed AFTER UPDATE OR DELETE ON people
  FOR EACH STATEMENT EXECUTE FUNCTION notify_auth_changed();

-- A key's last_used_at moves once a minute while it is used; that must not tell every server to
-- forget every cached credential. Only changes that matter to a credential notify.
DROP TRIGGER api_keys_auth_changed ON api_keys;
CREATE TRIGGER api_keys_auth_changed
  AFTER UPDATE OF revoked_at, access, kind, livemode, business_id, secret_hash OR DELETE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION notify_auth_changed();

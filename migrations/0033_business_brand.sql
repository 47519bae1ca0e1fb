-- Issue 23, must have 1: the business's brand on its payer pages, the same in both modes (like
-- its name). The colour is the pay button's background under white text (checked for contrast
-- when saved). The logo's bytes live in their own table, so the payer page's read of the
-- business (payer/view.ts) touches only the row's hash, never the image.
ALTER TABLE businesses ADD COLUMN brand_color text CHECK (brand_color ~ '^#[0-9a-f]{6}$');

CREATE TABLE business_logos (
  business_id text PRIMARY KEY REFERENCES businesses (id) ON DELETE CASCADE,
  -- Sniffed from the bytes' magic numbers, never the upload's own type or name.
  content_type text NOT NULL CHECK (content_type IN ('image/png', 'image/jpeg', 'image/webp', 'image/gif')),
  byte_size integer NOT NULL CHECK (byte_size > 0 AND byte_size <= 262144),
  -- Hex sha256 of the bytes: the served path's last part, so a new logo is a new URL.
  sha256 text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  width integer NOT NULL CHECK (width > 0 AND width <= 2048),
  height integer NOT NULL CHECK (height > 0 AND height <= 2048),
  content bytea NOT NULL,
  created_at timestamptz NOT NULL
);

import { settingsPage } from '../../src/dashboard/pages/settings.ts';
import { logoPath } from '../../src/resources/brand/queries.ts';
import type { BrandOut } from '../../src/resources/brand/read.ts';
import { FIXTURE_BRAND_COLOR, FIXTURE_LOGO, FIXTURE_LOGO_SHA256 } from '../support/brand-fixture.ts';
import { roaster, signedIn, VIEWER, type Fill, type PageState } from './state-kit.ts';

// The settings' Brand section (issue 23): a logo and colour set, each refusal beside its field
// with what was typed kept, and as a viewer reads it.

const BIZ_ID = 'biz_4fT9kQm2VxR7pLw3Zc8HnB1d';
const account = (v: Fill) => ({ id: BIZ_ID, name: v('Kestrel Coffee Roasters'), status: 'active' as const, commerce: 'active' as const, disabled_integrations: [], payout_wallet: '0x1111111111111111111111111111111111111111', crypto_enabled: true, fee_bps: 100 });
const frame = (v: Fill, role: 'owner' | 'viewer' = 'owner') => ({ business: roaster(v), mode: 'test' as const, role, account: account(v), activity: { entries: [], next: null } });
const BRANDED: BrandOut = {
  color: FIXTURE_BRAND_COLOR,
  logo: { path: logoPath(BIZ_ID, FIXTURE_LOGO_SHA256), content_type: 'image/png', byte_size: FIXTURE_LOGO.length, width: 160, height: 48 },
};

export const BRAND_STATES: readonly PageState[] = [
  signedIn({ fn: settingsPage, name: 'settings-brand', main: true, shows: 'the Brand section with a logo and a colour set: the logo\'s preview, upload and remove, the colour picker and its text' },
    (v, s) => settingsPage({ session: s, ...frame(v), brand: BRANDED, notice: true })),
  signedIn({ fn: settingsPage, name: 'settings-brand-logo-refused', shows: 'a logo refused (not an image), the message beside the file field' },
    (v, s) => settingsPage({ session: s, ...frame(v), brand: { color: null, logo: null }, error: { field: 'logo', message: v('The logo must be a PNG, JPEG, WebP or GIF image, and this file is none of these. (SVG is not accepted: it can carry script.)') } })),
  signedIn({ fn: settingsPage, name: 'settings-brand-color-refused', shows: 'a colour too light for white text refused, what was typed kept beside the message' },
    (v, s) => settingsPage({ session: s, ...frame(v), brand: BRANDED, typedColor: v('#ffd23f'), error: { field: 'brand_color', message: v('The brand colour #ffd23f is too light: white text on it has a contrast of 1.45:1, and buttons need at least 4.5:1. Choose a darker shade.') } })),
  signedIn({ fn: settingsPage, name: 'settings-brand-viewer', shows: 'the brand as a viewer sees it: the logo and the colour, no forms' },
    (v, s) => settingsPage({ session: s, ...frame(v, 'viewer'), brand: BRANDED }), VIEWER),
];

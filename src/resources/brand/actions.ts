import { readBusinessBrand } from './read.ts';
import { removeBusinessLogo } from './remove-logo.ts';
import { setBusinessLogo } from './set-logo.ts';

// The business's brand on its payer pages: the logo here; the colour is one of the settings
// (businesses/update-settings.ts), checked by brand/color.ts.
export const brandActions = [readBusinessBrand, setBusinessLogo, removeBusinessLogo];

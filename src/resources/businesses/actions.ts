import { updateBusinessSettings } from './update-settings.ts';
import { updateBusinessTerms } from './update-terms.ts';

// The account itself: its owners' settings, and the operator's terms.
export const businessActions = [updateBusinessSettings, updateBusinessTerms];

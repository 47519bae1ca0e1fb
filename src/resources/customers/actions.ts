import { eraseCustomer } from './erase.ts';

// What people do with customers beyond the API, which never changes them (spec 2.3 rule 6).
export const customerActions = [eraseCustomer];

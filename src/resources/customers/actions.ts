import { eraseCustomer } from './erase.ts';
import { readCustomerNote, setCustomerNote } from './note.ts';

// What people do with customers beyond the API, which never changes them (spec 2.3 rule 6).
export const customerActions = [eraseCustomer, readCustomerNote, setCustomerNote];

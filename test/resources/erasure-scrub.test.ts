import { describe, expect, it } from 'vitest';
import { eraseFromEventBody, scrubber, scrubMetadata, truncatedScrubber } from '../../src/resources/customers/scrub.ts';

// How the erasure rewrites one value (scrub.ts); the end-to-end search is erasure-everywhere.test.ts.

const details = { emails: ['ann.lee@shop.example'], names: ['Ann Lee', 'Al'], phones: ['+1 555 0100', null] };
const scrub = scrubber(details);

describe('scrubber', () => {
  it('erases the email anywhere, and the name and phone as whole words only', () => {
    expect(scrub('ref-ANN.LEE@shop.example/x')).toBe('ref-[erased]/x');
    expect(scrub('For Ann Lee, call +1 555 0100.')).toBe('For [erased], call [erased].');
    // Inside another word, or a name too short to tell from other words, stays.
    expect(scrub('Joann Leeds; Al Smith; +1 555 01009')).toBe('Joann Leeds; Al Smith; +1 555 01009');
  });

  it('erases a detail an excerpt cut short at its end, and nothing that only ends like one', () => {
    const excerpt = truncatedScrubber(details);
    expect(excerpt('{"customerEmail":"ann.lee@sh')).toBe('{"customerEmail":"[erased]');
    expect(excerpt('{"name":"Ann L')).toBe('{"name":"[erased]');
    expect(excerpt('{"note":"Joann L')).toBe('{"note":"Joann L');
    expect(excerpt('{"ok":true}')).toBe('{"ok":true}');
  });

  it('makes metadata that was nothing but a detail null, and keeps other values', () => {
    expect(scrubMetadata({ buyer: 'ann.lee@shop.example', note: 'for Ann Lee', count: 2, flag: null }, scrub))
      .toEqual({ buyer: null, note: 'for [erased]', count: 2, flag: null });
  });
});

describe('eraseFromEventBody', () => {
  const body = JSON.stringify({
    id: 'evt_1', type: 'payment.paid', created: 1, livemode: false,
    data: {
      payment: {
        id: 'pay_1', amount: '40.00', status: 'paid', url: 'https://pay.example/p/pay_1', customerEmail: 'ann.lee@shop.example', customerName: null,
        reference: 'ref-ann.lee@shop.example', description: 'For Ann Lee', metadata: { buyer: 'ann.lee@shop.example' }, newField: 'Ann Lee',
      },
      order: {
        id: 'ord_1', displayNumber: '#Ann Lee', summary: 'Pen for Ann Lee', total: '40.00', reference: 'ref-ann.lee@shop.example',
        customer: { id: 'cus_1', email: 'ann.lee@shop.example', name: 'Ann Lee', erased: false },
        shipTo: { name: 'Ann Lee' }, store: { name: 'Ann Lee shop', orderNumber: '#Ann Lee' },
        items: [{ name: 'Pen', sku: 'sku-ann.lee@shop.example', amount: '40.00', unitAmount: '40.00' }],
      },
      customer: { id: 'cus_1', email: 'ann.lee@shop.example', name: 'Ann Lee', phone: '+1 555 0100', storeAccounts: [{ customerId: 'ann.lee@shop.example' }], erased: false },
    },
  });

  it('nulls the customer\'s fields, erases free text in every other string (new fields too), and keeps the service\'s own', () => {
    const erased = JSON.parse(eraseFromEventBody(body, 'cus_1', new Set(['pay_1']), scrub));
    expect(erased.data.payment).toEqual({
      id: 'pay_1', amount: '40.00', status: 'paid', url: 'https://pay.example/p/pay_1', customerEmail: null, customerName: null,
      reference: 'ref-[erased]', description: 'For [erased]', metadata: { buyer: null }, newField: '[erased]',
    });
    expect(erased.data.order).toMatchObject({
      displayNumber: '#[erased]', summary: 'Pen for [erased]', reference: 'ref-[erased]', total: '40.00',
      customer: { id: 'cus_1', email: null, name: null, erased: true }, shipTo: null, store: { name: '[erased] shop', orderNumber: '#[erased]' },
      items: [{ name: 'Pen', sku: 'sku-[erased]', amount: '40.00', unitAmount: '40.00' }],
    });
    expect(erased.data.customer).toEqual({
      id: 'cus_1', email: null, name: null, phone: null, location: null, shipTo: null, billTo: null, storeAccounts: [{ customerId: '[erased]' }], erased: true,
    });
    expect(JSON.stringify(erased)).not.toMatch(/ann|555/i);
  });
});

// Every string a buyer reads on the payer pages, in English. Other languages implement the same
// shape (messages/index.ts), so a string missing in one is a type error.

/** A refusal as the API words it: its code, its sentence, and the field it is about. */
export interface RefusedInput {
  code: string;
  message: string;
  field?: string | undefined;
  /** The country of the address the field is part of, when the form gave one. */
  country?: string | undefined;
  /** What was typed in the field. */
  value?: string | undefined;
}

/** The region a listed country's addresses need, as a buyer calls it. */
const REGION_KINDS: Record<string, string> = { US: 'state', CA: 'province or territory', AU: 'state or territory' };

/** A refusal in a buyer's words, from its code and field: never the API's sentence, which speaks to developers. */
function refused({ code, field, country, value }: RefusedInput): string {
  const [whole = '', part = ''] = (field ?? '').split('.');
  switch (code) {
    case 'invalid_email':
      return value ? 'Enter a valid email address, such as name@example.com.' : 'Enter your email address.';
    case 'too_long':
      return 'This is longer than the field takes. Please shorten it.';
    case 'invalid_customer':
      if (whole === 'name') return 'Enter your name (at most 200 characters).';
      if (whole === 'phone') return value ? 'Enter your phone number in digits, with the country code, such as +1 415 555 0100.' : 'Enter your phone number.';
      break;
    case 'invalid_address':
      if (part === 'country') return 'Choose your country from the list.';
      if (part === 'line1') return 'Enter the street and house number.';
      if (part === 'city') return 'Enter the town or city.';
      if (part === 'region') return `Choose your ${REGION_KINDS[country ?? ''] ?? 'state, province or region'} from the list.`;
      if (part === 'postal_code') return value ? 'This postal code does not fit the country. Check it and try again.' : 'Enter the postal code.';
      if (whole === 'shipping_address') return 'Enter your shipping address.';
      if (whole === 'billing_address') return 'Enter your billing address.';
      break;
    case 'invalid_state':
      return 'This payment changed in the meantime. Reload the page.';
    case 'checkout_inactive':
      return 'This offer no longer takes new buyers.';
    case 'payments_unavailable':
    case 'provider_unavailable':
      return 'This business can\'t take payments right now. Nothing was charged; please try again later.';
    case 'coin_unavailable':
      return 'This coin can\'t be accepted right now. Choose another.';
    case 'invalid_plan':
      return 'That plan is not offered here. Choose one of the plans shown.';
    case 'exchange_rate_unavailable':
      return 'Live payments in this currency cannot start right now: its exchange rate is not up to date. Please try again later.';
  }
  return 'Please check what you entered here.';
}

/** Units that say the price is paid once, in either catalogue's language: nothing to add to "one payment". */
export const ONCE = /^(?:one[- ]?time|once|single|einmalig|einmal)$/i;

/**
 * A pricing table's price is one payment, not a subscription: "one payment for a month" for a unit
 * that is one word, a unit saying once adds nothing, else the merchant's unit as written ("one payment (2 months)").
 */
function onePaymentFor(unit: string): string {
  if (ONCE.test(unit)) return 'one payment';
  if (!/^\p{L}+$/u.test(unit)) return `one payment (${unit})`;
  return `one payment for ${/^(?:[aeio]|hour)/i.test(unit) ? 'an' : 'a'} ${unit}`;
}

export const en = {
  lang: 'en',
  skip: 'Skip to main content',
  testBanner: 'Test mode: no real money moves. Nothing you do here is charged.',
  payTitle: (what: string) => `Pay for ${what}`,
  amountDue: 'Amount due',
  forWhom: (name: string) => `For ${name}`,
  items: 'What you are paying for',
  item: 'Item',
  quantity: 'Quantity',
  price: 'Price',
  subtotal: 'Subtotal',
  discount: 'Discount',
  shipping: 'Shipping',
  tax: 'Tax',
  total: 'Total',
  noteFromMerchant: (business: string) => `A note from ${business}`,
  yourDetails: 'Your details',
  email: 'Email',
  emailHint: 'Where your receipt goes.',
  name: 'Full name',
  phone: 'Phone',
  shippingAddress: 'Shipping address',
  billingAddress: 'Billing address',
  line1: 'Address line 1',
  line2: 'Address line 2 (optional)',
  city: 'City',
  region: 'State, province or region',
  regionHint: 'In the US, Canada and Australia, its name, such as California or Ontario.',
  postalCode: 'Postal code',
  country: 'Country',
  continue: 'Continue to payment',
  fixErrors: 'Please check the fields marked below.',
  expiresAt: 'This payment can be made until',
  expiresIn: 'Time left',
  howToPay: 'How would you like to pay?',
  byCard: 'By card',
  byCardHint: 'You buy the amount at a card provider, who sends it to this payment. You finish on their page.',
  recommended: 'Recommended',
  payWith: (provider: string) => `Pay with ${provider}`,
  noProviders: 'No card provider can take this payment. You can still pay from your own wallet.',
  noProvidersNoWallet: 'No card provider can take this payment.',
  byWallet: 'From your own wallet',
  byWalletHint: (token: string, network: string) => `Send exactly this amount of ${token} on the ${network} network to this address. Scan the code with your wallet, or copy the address and amount.`,
  sendAmount: 'Amount to send',
  toAddress: 'Address',
  network: 'Network',
  priceIs: (price: string) => `That is ${price}.`,
  copy: 'Copy',
  copied: 'Copied',
  chooseCoin: 'What you send',
  coinOption: (token: string, network: string) => `${token} on ${network}`,
  /** Live, and nothing could receive the buyer's money now (no network watched, no provider with keys): said instead of a form. */
  unavailableTitle: 'This business can\'t take payments right now',
  unavailableText: 'Nothing has been charged. Please don\'t send any money for this payment now; try again later, or contact the business.',
  /** Live, an address already shown, and a network's processor not healthy now: the address stays valid; never "don't pay". */
  confirmationDelayed: (networks: readonly string[]) => `Confirmation on ${networks.join(' and ')} may take longer than usual right now. This address stays valid: money sent to it is found and confirmed as soon as the network is reachable again, and this page then shows it.`,
  qrLabel: (token: string, network: string) => `QR code: a payment request for ${token} on ${network} to this payment's address, with the amount`,
  testPaid: 'The full amount arrives',
  testUnderpaid: 'Less than asked arrives',
  testElsewhere: 'The money goes to another wallet',
  testLate: 'The money arrives after the time is up',
  testLateCanceled: 'The money arrives after the link was canceled',
  changeDetails: 'Change your details',
  waitingProvider: (provider: string) => `Waiting for ${provider}`,
  waitingProviderText: (provider: string) => `Finish paying on ${provider}'s page. This page updates when the money arrives.`,
  chooseAgain: 'Choose another way to pay',
  cardDeclined: 'The card was declined, and nothing was taken. You can try again, this way or another.',
  refresh: 'Check the status again',
  paidTitle: 'Thank you: paid',
  paidText: (business: string) => `${business} has received your payment.`,
  receipt: 'Receipt',
  paymentId: 'Payment reference',
  paidOn: 'Paid on',
  paidWith: 'Paid with',
  continueToMerchant: (business: string) => `Continue to ${business}`,
  goingOn: 'Taking you on in a moment…',
  heldTitle: 'Your payment needs a check',
  heldText: (business: string) => `Your payment arrived, but ${business} needs to look at it before it counts (for example, if less than the full amount arrived). You don't need to do anything now: ${business} will contact you.`,
  failedTitle: 'This payment did not go through',
  failedText: (business: string) => `Nothing was taken. Ask ${business} for a new payment link to try again.`,
  closedTitle: 'This payment is closed',
  expiredText: 'The time to pay has run out, so this page no longer takes payments. If you already sent money, it still arrives and this page will show it.',
  canceledText: (business: string) => `${business} canceled this payment request, so it no longer takes payments.`,
  askMerchant: (business: string) => `To pay, ask ${business} for a new link.`,
  notFoundTitle: 'Page not found',
  notFoundText: 'There is nothing to pay at this address. Check the link you were given.',
  tooManyTitle: 'Too many tries',
  tooManyText: 'Too many attempts were made in a short time. Try again in a minute.',
  visitorStartsText: 'You started several payments in the last minute. Nothing was charged. Try again in a minute.',
  busyTitle: 'Busy right now',
  busyText: 'This shop is taking many payments right now, so yours was not started. Nothing was charged. Try again in a minute.',
  problemTitle: 'Something went wrong',
  problemText: 'We could not finish that step. Please try again.',
  staleTitle: 'This page has expired',
  staleText: 'Open the payment page again and repeat the last step.',
  trackTitle: 'Payment status',
  status: 'Status',
  statuses: {
    open: 'Waiting for payment',
    pending: 'Payment on its way',
    paid: 'Paid',
    held: 'Being checked',
    failed: 'Failed',
    expired: 'Closed',
  } as Record<string, string>,
  canceledStatus: 'Canceled',
  created: 'Requested on',
  canceledOn: 'Canceled on',
  amount: 'Amount',
  description: 'For',
  testProviderTitle: (provider: string) => `${provider} (Test)`,
  testProviderText: 'This stands in for the card provider in Test mode. Choose what happens to the card payment:',
  testProviderPaid: 'Card accepted: the full amount is sent',
  testProviderUnderpaid: 'Card accepted, but less than asked is sent',
  testProviderDeclined: 'Card declined',
  backToPayment: 'Back to the payment',
  checkoutClosedTitle: 'No longer available',
  checkoutClosedText: (business: string) => `${business} no longer sells this here.`,
  /** What a checkout takes, said before the buyer types anything. */
  checkoutWaysCardOrWallet: 'Pay by card, or in stablecoin from your own wallet.',
  checkoutWaysCard: 'Pay by card.',
  checkoutPausedTitle: 'Not taking payments right now',
  checkoutPausedText: (business: string) => `${business} cannot take payments here right now. Try again later, or ask ${business}.`,
  buy: 'Buy',
  /** A pricing table: its plans, the option switch, the buyer's choice. */
  plansHeading: 'Choose a plan',
  billing: 'Period',
  recommendedPlan: 'Recommended',
  pricePer: (price: string, unit: string) => `${price}, ${onePaymentFor(unit)}`,
  yourPlan: 'Your plan',
  payForPlan: 'Continue to pay',
  /** What a refused step or field says, in the buyer's words. */
  fieldError: refused,
  payAmount: (price: string) => `Pay ${price}`,
  // Issue 23, part 1: the payer pages' redesign (summary, ways to pay, countdown, Test controls, countries).
  timesQuantity: (quantity: number) => `× ${quantity}`,
  itemsFolded: (count: number, total: string) => `${count} ${count === 1 ? 'item' : 'items'} · ${total}`,
  testControls: 'Test mode controls',
  testControlsWallet: 'No real wallet can pay in Test mode. Play out what the buyer\'s money could do:',
  testControlsProvider: 'Play out what the card provider could do with this card payment:',
  testControlsLate: 'Play out money that arrives after the payment closed:',
  walletTestText: 'In Test mode there is no address to send to: use the Test mode controls at the foot of the page.',
  orByWallet: 'Or pay from your own wallet',
  selected: 'Selected',
  chooseCountry: 'Choose your country',
  chooseRegion: 'Choose from the list',
  errorLabel: 'Error',
  regionLabels: { US: 'State', CA: 'Province or territory', AU: 'State or territory' } as Record<string, string>,
  /** Pricing tables that charge what the buyer chose (issue 23): each plan card's button, the buy button without a label. */
  choosePlanOf: (plan: string) => `Choose ${plan}`,
  planChosen: 'Selected',
  plansFrom: (price: string) => `Plans from ${price}`,
  // Issue 23, receipts and notices by mail (pages/mails/payment.ts): the buyer's receipt and held notice.
  mailTestMode: 'Test mode — no money moved. This is how a buyer\'s mail looks.',
  mailReceiptSubject: (business: string) => `Your receipt from ${business}`,
  mailReceiptHeading: 'Thank you for your payment',
  mailReceiptText: (business: string) => `${business} has received your payment. This mail is your receipt.`,
  mailAmountPaid: 'Amount paid',
  mailItems: 'What you paid for',
  mailTrack: 'The status of this payment, at any time',
  mailHeldSubject: (business: string) => `Your payment to ${business} needs attention`,
  mailHeldHeading: 'Your payment needs a check',
  mailHeldUnderpaid: (received: string, due: string) => `Your payment arrived, but less than the full amount: ${received} arrived of ${due}.`,
  mailHeldOther: 'Your payment arrived, but something about it needs a check before it counts.',
  mailHeldTold: (business: string) => `${business} has been told and will sort it out with you. You don't need to do anything now; please don't send the money again.`,
  mailAmountDue: 'Amount due',
  mailArrived: 'Arrived',
  mailArrivedOn: 'Arrived on',
  mailFooter: (business: string) => `You receive this mail because you paid ${business} and gave this address for your receipt.`,
  // Issue 23, the rest of an underpayment (held and tracking pages): what arrived, what is missing, paying the rest.
  heldReceived: (received: string, due: string, missing: string) => `We received ${received} of ${due}; ${missing} is missing.`,
  heldReceivedMore: (received: string, due: string) => `We received ${received}; ${due} was due.`,
  restAskedText: (business: string) => `${business} asks you to pay the rest, so that your payment is complete.`,
  payRemaining: (price: string) => `Pay the remaining ${price}`,
  restPaidText: (business: string) => `The rest arrived too: ${business} has received your whole payment.`,
  received: 'Received',
  paysRestText: (arrived: string, total: string) => `This pays the rest of your order: ${arrived} of ${total} arrived earlier.`,
};

export type Messages = typeof en;

import type { Messages, RefusedInput } from './en.ts';

// Every string a buyer reads on the payer pages, in German (formal "Sie"). Typed as the English
// catalogue, so a string missing here is a type error. A refused field is said in German from
// its code and field; a refusal this catalogue has no words for keeps the API's English sentence.

const ADDRESS_PARTS: Record<string, string> = {
  line1: 'Geben Sie Straße und Hausnummer ein.',
  city: 'Geben Sie den Ort ein.',
  region: 'Geben Sie die Region als Kürzel ein, zum Beispiel CA oder NSW.',
  postal_code: 'Diese Postleitzahl passt nicht zu diesem Land.',
  country: 'Geben Sie das Land als Code aus zwei Buchstaben ein, zum Beispiel DE, AT oder CH.',
};

function refused({ code, message, field }: RefusedInput): string {
  const [whole = '', part = ''] = (field ?? '').split('.');
  switch (code) {
    case 'invalid_email':
      return 'Geben Sie eine gültige E-Mail-Adresse ein.';
    case 'invalid_customer':
      if (whole === 'name') return 'Geben Sie Ihren Namen ein (höchstens 200 Zeichen).';
      if (whole === 'phone') return 'Geben Sie Ihre Telefonnummer ein (höchstens 40 Zeichen).';
      break;
    case 'invalid_address':
      if (part && ADDRESS_PARTS[part]) return ADDRESS_PARTS[part];
      if (whole === 'shipping_address') return 'Geben Sie Ihre Lieferadresse ein.';
      if (whole === 'billing_address') return 'Geben Sie Ihre Rechnungsadresse ein.';
      break;
    case 'invalid_state':
      return 'Diese Zahlung hat sich inzwischen geändert. Laden Sie die Seite neu.';
    case 'checkout_inactive':
      return 'Dieses Angebot nimmt keine neuen Käufe mehr an.';
    case 'payments_unavailable':
    case 'provider_unavailable':
      return 'Dieses Unternehmen kann gerade keine Zahlungen annehmen. Es wurde nichts berechnet; versuchen Sie es später erneut.';
    case 'coin_unavailable':
      return 'Diese Münze kann gerade nicht angenommen werden. Wählen Sie eine andere.';
    case 'invalid_plan':
      return 'Wählen Sie einen Tarif.';
    case 'exchange_rate_unavailable':
      return 'Diese Zahlung kann gerade nicht beginnen: Der Wechselkurs für ihre Währung ist nicht aktuell. Versuchen Sie es später noch einmal.';
  }
  return message;
}

export const de: Messages = {
  lang: 'de',
  skip: 'Zum Inhalt springen',
  testBanner: 'Testmodus: Es fließt kein echtes Geld. Nichts, was Sie hier tun, wird berechnet.',
  payTitle: (what) => `Bezahlen: ${what}`,
  amountDue: 'Zu zahlen',
  forWhom: (name) => `Für ${name}`,
  items: 'Wofür Sie bezahlen',
  item: 'Artikel',
  quantity: 'Menge',
  price: 'Preis',
  subtotal: 'Zwischensumme',
  discount: 'Rabatt',
  shipping: 'Versand',
  tax: 'Steuer',
  total: 'Gesamt',
  noteFromMerchant: (business) => `Eine Nachricht von ${business}`,
  yourDetails: 'Ihre Angaben',
  email: 'E-Mail',
  emailHint: 'Dorthin geht Ihre Quittung.',
  name: 'Vollständiger Name',
  phone: 'Telefon',
  shippingAddress: 'Lieferadresse',
  billingAddress: 'Rechnungsadresse',
  line1: 'Adresszeile 1',
  line2: 'Adresszeile 2 (optional)',
  city: 'Ort',
  region: 'Bundesland, Provinz oder Region',
  regionHint: 'Für die USA, Kanada und Australien ihr Kürzel, zum Beispiel CA oder NSW.',
  postalCode: 'Postleitzahl',
  country: 'Ländercode',
  countryHint: 'Zwei Buchstaben, zum Beispiel DE, AT oder CH.',
  continue: 'Weiter zur Zahlung',
  fixErrors: 'Bitte prüfen Sie die unten markierten Felder.',
  expiresAt: 'Diese Zahlung ist möglich bis',
  expiresIn: 'Verbleibende Zeit',
  howToPay: 'Wie möchten Sie bezahlen?',
  byCard: 'Mit Karte',
  byCardHint: 'Sie kaufen den Betrag bei einem Kartenanbieter, der ihn an diese Zahlung sendet. Sie schließen auf dessen Seite ab.',
  recommended: 'empfohlen',
  payWith: (provider) => `Mit ${provider} bezahlen`,
  noProviders: 'Kein Kartenanbieter kann diese Zahlung annehmen. Sie können weiterhin aus Ihrer eigenen Wallet zahlen.',
  noProvidersNoWallet: 'Kein Kartenanbieter kann diese Zahlung annehmen.',
  byWallet: 'Aus Ihrer eigenen Wallet',
  byWalletHint: (token, network) => `Senden Sie genau diesen Betrag in ${token} im ${network}-Netzwerk an diese Adresse. Scannen Sie den Code mit Ihrer Wallet oder kopieren Sie Adresse und Betrag.`,
  sendAmount: 'Zu sendender Betrag',
  toAddress: 'Adresse',
  network: 'Netzwerk',
  priceIs: (price) => `Das sind ${price}.`,
  copy: 'Kopieren',
  copied: 'Kopiert',
  chooseCoin: 'Was Sie senden',
  coinOption: (token, network) => `${token} im ${network}-Netzwerk`,
  unavailableTitle: 'Dieses Unternehmen kann gerade keine Zahlungen annehmen',
  unavailableText: 'Es wurde nichts berechnet. Bitte senden Sie für diese Zahlung jetzt kein Geld; versuchen Sie es später erneut oder wenden Sie sich an das Unternehmen.',
  qrLabel: (token, network) => `QR-Code: eine Zahlungsanforderung über ${token} im ${network}-Netzwerk an die Adresse dieser Zahlung, mit dem Betrag`,
  walletTestHint: 'Im Testmodus gibt es keine Adresse zum Senden. Spielen Sie stattdessen durch, was mit dem Geld geschehen könnte:',
  testPaid: 'Der volle Betrag kommt an',
  testUnderpaid: 'Weniger als verlangt kommt an',
  testElsewhere: 'Das Geld geht an eine andere Wallet',
  testLate: 'Das Geld kommt nach Ablauf der Frist an',
  testLateCanceled: 'Das Geld kommt an, nachdem der Link storniert wurde',
  changeDetails: 'Ihre Angaben ändern',
  waitingProvider: (provider) => `Warten auf ${provider}`,
  waitingProviderText: (provider) => `Schließen Sie die Zahlung auf der Seite von ${provider} ab. Diese Seite aktualisiert sich, sobald das Geld ankommt.`,
  chooseAgain: 'Eine andere Zahlungsart wählen',
  cardDeclined: 'Die Karte wurde abgelehnt, es wurde nichts abgebucht. Sie können es noch einmal versuchen, auf diesem oder einem anderen Weg.',
  refresh: 'Status erneut prüfen',
  paidTitle: 'Vielen Dank: bezahlt',
  paidText: (business) => `${business} hat Ihre Zahlung erhalten.`,
  receipt: 'Quittung',
  paymentId: 'Zahlungsreferenz',
  paidOn: 'Bezahlt am',
  paidWith: 'Bezahlt mit',
  continueToMerchant: (business) => `Weiter zu ${business}`,
  goingOn: 'Sie werden gleich weitergeleitet …',
  heldTitle: 'Ihre Zahlung wird geprüft',
  heldText: (business) => `Ihre Zahlung ist angekommen, aber ${business} muss sie prüfen, bevor sie zählt (zum Beispiel, wenn weniger als der volle Betrag ankam). Sie müssen jetzt nichts tun: ${business} meldet sich bei Ihnen.`,
  failedTitle: 'Diese Zahlung ist nicht zustande gekommen',
  failedText: (business) => `Es wurde nichts abgebucht. Bitten Sie ${business} um einen neuen Zahlungslink, um es erneut zu versuchen.`,
  closedTitle: 'Diese Zahlung ist geschlossen',
  expiredText: 'Die Frist zum Bezahlen ist abgelaufen, daher nimmt diese Seite keine Zahlungen mehr an. Wenn Sie bereits Geld gesendet haben, kommt es trotzdem an und diese Seite zeigt es an.',
  canceledText: (business) => `${business} hat diese Zahlungsanforderung storniert, daher nimmt sie keine Zahlungen mehr an.`,
  askMerchant: (business) => `Um zu bezahlen, bitten Sie ${business} um einen neuen Link.`,
  notFoundTitle: 'Seite nicht gefunden',
  notFoundText: 'Unter dieser Adresse gibt es nichts zu bezahlen. Prüfen Sie den Link, den Sie erhalten haben.',
  tooManyTitle: 'Zu viele Versuche',
  tooManyText: 'In kurzer Zeit gab es zu viele Versuche. Versuchen Sie es in einer Minute erneut.',
  visitorStartsText: 'Sie haben in der letzten Minute mehrere Zahlungen begonnen. Es wurde nichts abgebucht. Versuchen Sie es in einer Minute erneut.',
  busyTitle: 'Gerade viel los',
  busyText: 'Dieser Shop nimmt gerade viele Zahlungen entgegen, daher wurde Ihre nicht begonnen. Es wurde nichts abgebucht. Versuchen Sie es in einer Minute erneut.',
  problemTitle: 'Etwas ist schiefgelaufen',
  problemText: 'Dieser Schritt hat nicht geklappt. Bitte versuchen Sie es erneut.',
  staleTitle: 'Diese Seite ist abgelaufen',
  staleText: 'Öffnen Sie die Zahlungsseite erneut und wiederholen Sie den letzten Schritt.',
  trackTitle: 'Zahlungsstatus',
  status: 'Status',
  statuses: {
    open: 'Wartet auf Zahlung',
    pending: 'Zahlung unterwegs',
    paid: 'Bezahlt',
    held: 'Wird geprüft',
    failed: 'Fehlgeschlagen',
    expired: 'Geschlossen',
  },
  canceledStatus: 'Storniert',
  created: 'Angefordert am',
  canceledOn: 'Storniert am',
  amount: 'Betrag',
  description: 'Für',
  testProviderTitle: (provider) => `${provider} (Test)`,
  testProviderText: 'Diese Seite steht im Testmodus für den Kartenanbieter. Wählen Sie, was mit der Kartenzahlung geschieht:',
  testProviderPaid: 'Karte akzeptiert: der volle Betrag wird gesendet',
  testProviderUnderpaid: 'Karte akzeptiert, aber weniger als verlangt wird gesendet',
  testProviderDeclined: 'Karte abgelehnt',
  backToPayment: 'Zurück zur Zahlung',
  checkoutClosedTitle: 'Nicht mehr verfügbar',
  checkoutClosedText: (business) => `${business} verkauft dies hier nicht mehr.`,
  checkoutWaysCardOrWallet: 'Zahlen Sie per Karte oder in Stablecoin aus Ihrer eigenen Wallet.',
  checkoutWaysCard: 'Zahlen Sie per Karte.',
  checkoutPausedTitle: 'Gerade keine Zahlungen möglich',
  checkoutPausedText: (business) => `${business} kann hier gerade keine Zahlungen annehmen. Versuchen Sie es später erneut oder fragen Sie ${business}.`,
  buy: 'Kaufen',
  plansHeading: 'Tarife',
  billing: 'Abrechnung',
  recommendedPlan: 'Empfohlen',
  pricePer: (price, unit) => `${price} / ${unit}`,
  yourPlan: 'Ihr Tarif',
  payForPlan: 'Weiter zur Zahlung',
  fieldError: refused,
  payAmount: (price) => `${price} bezahlen`,
  // Issue 23, der Rest einer Unterzahlung (Seiten „wird geprüft“ und Status): was ankam, was fehlt, den Rest zahlen.
  heldReceived: (received, due, missing) => `Wir haben ${received} von ${due} erhalten; es fehlen ${missing}.`,
  heldReceivedMore: (received, due) => `Wir haben ${received} erhalten; fällig waren ${due}.`,
  restAskedText: (business) => `${business} bittet Sie, den Rest zu zahlen, damit Ihre Zahlung vollständig ist.`,
  payRemaining: (price) => `Die restlichen ${price} bezahlen`,
  restPaidText: (business) => `Auch der Rest ist angekommen: ${business} hat Ihre Zahlung vollständig erhalten.`,
  received: 'Erhalten',
  paysRestText: (arrived, total) => `Hiermit zahlen Sie den Rest Ihrer Bestellung: ${arrived} von ${total} sind bereits angekommen.`,
};

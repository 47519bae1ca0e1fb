import { ONCE, type Messages, type RefusedInput } from './en.ts';

// Every string a buyer reads on the payer pages, in German (formal "Sie"). Typed as the English
// catalogue, so a string missing here is a type error. A refused field is said in German from
// its code and field; a refusal this catalogue has no words for keeps the API's English sentence.

const ADDRESS_PARTS: Record<string, string> = {
  line1: 'Geben Sie Straße und Hausnummer ein.',
  city: 'Geben Sie den Ort ein.',
  country: 'Wählen Sie Ihr Land aus der Liste.',
};

/** The region a listed country's addresses need, as a buyer calls it. */
const REGIONS: Record<string, string> = {
  US: 'Wählen Sie Ihren Bundesstaat aus der Liste.',
  CA: 'Wählen Sie Ihre Provinz oder Ihr Territorium aus der Liste.',
  AU: 'Wählen Sie Ihren Bundesstaat oder Ihr Territorium aus der Liste.',
};

function refused({ code, field, country, value }: RefusedInput): string {
  const [whole = '', part = ''] = (field ?? '').split('.');
  switch (code) {
    case 'invalid_email':
      return value ? 'Geben Sie eine gültige E-Mail-Adresse ein, zum Beispiel name@example.com.' : 'Geben Sie Ihre E-Mail-Adresse ein.';
    case 'too_long':
      return 'Das ist länger, als dieses Feld erlaubt. Bitte kürzen Sie es.';
    case 'invalid_customer':
      if (whole === 'name') return 'Geben Sie Ihren Namen ein (höchstens 200 Zeichen).';
      if (whole === 'phone') return value ? 'Geben Sie Ihre Telefonnummer in Ziffern mit Ländervorwahl ein, etwa +49 30 1234567.' : 'Geben Sie Ihre Telefonnummer ein.';
      break;
    case 'invalid_address':
      if (part && ADDRESS_PARTS[part]) return ADDRESS_PARTS[part];
      if (part === 'region') return REGIONS[country ?? ''] ?? 'Wählen Sie Ihre Region aus der Liste.';
      if (part === 'postal_code') return value ? 'Diese Postleitzahl passt nicht zu diesem Land. Prüfen Sie sie bitte.' : 'Geben Sie die Postleitzahl ein.';
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
      return 'Diesen Tarif gibt es hier nicht. Wählen Sie einen der angezeigten Tarife.';
    case 'exchange_rate_unavailable':
      return 'Diese Zahlung kann gerade nicht beginnen: Der Wechselkurs für ihre Währung ist nicht aktuell. Versuchen Sie es später noch einmal.';
  }
  return 'Bitte prüfen Sie Ihre Eingabe hier.';
}

/** A pricing table's unit as German says "for one month" (English or German units), else the merchant's unit as written. */
const PERIODS: Record<string, string> = {
  hour: 'eine Stunde', stunde: 'eine Stunde', day: 'einen Tag', tag: 'einen Tag', week: 'eine Woche', woche: 'eine Woche', month: 'einen Monat', monat: 'einen Monat',
  quarter: 'ein Quartal', quartal: 'ein Quartal', year: 'ein Jahr', jahr: 'ein Jahr',
};
function onePaymentFor(unit: string): string {
  if (ONCE.test(unit)) return 'einmalige Zahlung';
  const period = PERIODS[unit.toLowerCase()];
  return period ? `einmalige Zahlung für ${period}` : `einmalige Zahlung (${unit})`;
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
  regionHint: 'In den USA, Kanada und Australien ihr Name, zum Beispiel California oder Ontario.',
  postalCode: 'Postleitzahl',
  country: 'Land',
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
  confirmationDelayed: (networks: readonly string[]) => `Die Bestätigung auf ${networks.join(' und ')} kann gerade länger dauern als üblich. Diese Adresse bleibt gültig: Geld, das an sie gesendet wird, wird gefunden und bestätigt, sobald das Netzwerk wieder erreichbar ist, und diese Seite zeigt es dann an.`,
  qrLabel: (token, network) => `QR-Code: eine Zahlungsanforderung über ${token} im ${network}-Netzwerk an die Adresse dieser Zahlung, mit dem Betrag`,
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
  plansHeading: 'Wählen Sie einen Tarif',
  billing: 'Zeitraum',
  recommendedPlan: 'Empfohlen',
  pricePer: (price, unit) => `${price}, ${onePaymentFor(unit)}`,
  yourPlan: 'Ihr Tarif',
  payForPlan: 'Weiter zur Zahlung',
  fieldError: refused,
  payAmount: (price) => `${price} bezahlen`,
  // Issue 23, part 1: the payer pages' redesign (summary, ways to pay, countdown, Test controls, countries).
  timesQuantity: (quantity) => `× ${quantity}`,
  itemsFolded: (count, total) => `${count} Artikel · ${total}`,
  testControls: 'Steuerung für den Testmodus',
  testControlsWallet: 'Im Testmodus kann keine echte Wallet zahlen. Spielen Sie durch, was mit dem Geld des Käufers geschehen könnte:',
  testControlsProvider: 'Spielen Sie durch, was der Kartenanbieter mit dieser Kartenzahlung tun könnte:',
  testControlsLate: 'Spielen Sie Geld durch, das erst nach dem Ende der Zahlung ankommt:',
  walletTestText: 'Im Testmodus gibt es keine Adresse, an die Sie senden könnten: Nutzen Sie die Steuerung für den Testmodus am Ende der Seite.',
  orByWallet: 'Oder aus Ihrer eigenen Wallet bezahlen',
  selected: 'Ausgewählt',
  chooseCountry: 'Wählen Sie Ihr Land',
  chooseRegion: 'Aus der Liste wählen',
  errorLabel: 'Fehler',
  regionLabels: { US: 'Bundesstaat', CA: 'Provinz oder Territorium', AU: 'Bundesstaat oder Territorium' },
  /** Pricing tables that charge what the buyer chose (issue 23). */
  choosePlanOf: (plan) => `${plan} wählen`,
  planChosen: 'Ausgewählt',
  plansFrom: (price) => `Tarife ab ${price}`,
  // Issue 23, Belege und Hinweise per Mail (pages/mails/payment.ts): Beleg und Prüfhinweis an den Käufer.
  mailTestMode: 'Testmodus — es wurde kein Geld bewegt. So sieht die Mail für Käufer aus.',
  mailReceiptSubject: (business) => `Ihr Beleg von ${business}`,
  mailReceiptHeading: 'Vielen Dank für Ihre Zahlung',
  mailReceiptText: (business) => `${business} hat Ihre Zahlung erhalten. Diese Mail ist Ihr Beleg.`,
  mailAmountPaid: 'Gezahlter Betrag',
  mailItems: 'Wofür Sie bezahlt haben',
  mailTrack: 'Der Stand dieser Zahlung, jederzeit',
  mailHeldSubject: (business) => `Ihre Zahlung an ${business} muss geprüft werden`,
  mailHeldHeading: 'Ihre Zahlung wird geprüft',
  mailHeldUnderpaid: (received, due) => `Ihre Zahlung ist angekommen, aber nicht der volle Betrag: ${received} von ${due} sind eingegangen.`,
  mailHeldOther: 'Ihre Zahlung ist angekommen, muss aber geprüft werden, bevor sie zählt.',
  mailHeldTold: (business) => `${business} wurde informiert und klärt das mit Ihnen. Sie müssen jetzt nichts tun; bitte senden Sie das Geld nicht noch einmal.`,
  mailAmountDue: 'Fälliger Betrag',
  mailArrived: 'Eingegangen',
  mailArrivedOn: 'Eingegangen am',
  mailFooter: (business) => `Sie erhalten diese Mail, weil Sie an ${business} gezahlt und diese Adresse für Ihren Beleg angegeben haben.`,
  // Issue 23, der Rest einer Unterzahlung (Seiten „wird geprüft“ und Status): was ankam, was fehlt, den Rest zahlen.
  heldReceived: (received, due, missing) => `Wir haben ${received} von ${due} erhalten; es fehlen ${missing}.`,
  heldReceivedMore: (received, due) => `Wir haben ${received} erhalten; fällig waren ${due}.`,
  restAskedText: (business) => `${business} bittet Sie, den Rest zu zahlen, damit Ihre Zahlung vollständig ist.`,
  payRemaining: (price) => `Die restlichen ${price} bezahlen`,
  restPaidText: (business) => `Auch der Rest ist angekommen: ${business} hat Ihre Zahlung vollständig erhalten.`,
  received: 'Erhalten',
  paysRestText: (arrived, total) => `Hiermit zahlen Sie den Rest Ihrer Bestellung: ${arrived} von ${total} sind bereits angekommen.`,
};

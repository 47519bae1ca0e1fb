import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../core/errors.ts';
import { buyCheckout, checkoutRefusal, readCheckoutView, takesBuyers, type CheckoutView } from '../../resources/payer/checkout.ts';
import { keepPayerLanguage } from '../../resources/payer/language.ts';
import { payerMessagePage } from '../views/message.ts';
import { formValues, type PayerPages } from '../requests.ts';
import { checkoutClosedPage, checkoutPage } from '../views/checkout.ts';
import { detailsFrom, refusalOf, type FieldErrors, type FormValues } from '../views/details.ts';
import { price } from '../views/frame.ts';
import { pricingTablePage } from '../views/pricing-table.ts';

// A checkout's hosted page (spec 2.2 url, /c/<slug>): buying it makes the buyer's own payment and
// order and goes on to that payment's page; and what the buy button (embed.js) reads of it.

const slugOf = (request: FastifyRequest) => (request.params as { slug: string }).slug;
/** The switch's side a pricing table shows: the second only when it has options and it was asked for. */
const optionOf = (view: CheckoutView, asked: unknown): 0 | 1 => (view.checkout.options && asked === '1' ? 1 : 0);

export function registerCheckoutRoutes(scope: FastifyInstance, pages: PayerPages): void {
  const { context } = pages;
  const view = async (request: FastifyRequest): Promise<CheckoutView> => {
    const found = await readCheckoutView(context.db, slugOf(request));
    if (!found) throw new ApiError('not_found', 'There is no checkout at this address.');
    return found;
  };
  const scopeOf = (checkout: CheckoutView) => `checkout:${checkout.checkout.id}`;
  const render = async (request: FastifyRequest, reply: FastifyReply, checkout: CheckoutView, status = 200, retry?: { values: FormValues; errors: FieldErrors }) => {
    const { t } = pages.of(request);
    // Deleted (gone for good), or its account cannot take payments now: said before anyone types.
    if (!takesBuyers(checkout)) return pages.send(request, reply, checkout.checkout.active ? 403 : 410, checkoutClosedPage({ t, view: checkout }));
    // Live and nothing could receive the money now (no network watched, a provider without keys): no form that leads nowhere.
    if (await checkoutRefusal(context, checkout)) return pages.send(request, reply, 200, payerMessagePage({ t, title: t.unavailableTitle, text: t.unavailableText }));
    const token = pages.forms.tokenFor(request, reply, scopeOf(checkout));
    const action = `/c/${encodeURIComponent(checkout.checkout.slug)}`;
    const values = retry?.values ?? {};
    const errors = retry?.errors ?? {};
    // A pricing table shows the prices of the option asked for (the switch's links, or the form posted).
    const option = optionOf(checkout, retry ? values.option : (request.query as { option?: unknown }).option);
    const make = checkout.checkout.kind === 'pricing_table'
      ? () => pricingTablePage({ t, view: checkout, action, option, values, errors })
      : () => checkoutPage({ t, view: checkout, action, values, errors });
    // Every buyer of a checkout opens the same page: kept, unless it shows what one buyer typed.
    // The key holds all the page shows: the checkout's view and the option.
    return retry === undefined && status === 200 ? pages.sendKept(request, reply, JSON.stringify({ checkout, option }), make, token) : pages.send(request, reply, status, make(), token);
  };

  scope.get('/c/:slug', async (request, reply) => render(request, reply, await view(request)));

  scope.post('/c/:slug', async (request, reply) => {
    const checkout = await view(request);
    const values = formValues(pages.forms.check(request, scopeOf(checkout)));
    // A form loaded before the checkout was deleted: the closed page, and nothing is written.
    if (!takesBuyers(checkout)) return render(request, reply, checkout);
    let paymentId: string;
    try {
      paymentId = await buyCheckout(context, checkout, detailsFrom(values, checkout.checkout.collect), () => pages.admitStart(request, { businessId: checkout.business.id, livemode: checkout.checkout.livemode }),
        { plan: values.plan, option: values.option });
    } catch (error) {
      if (!(error instanceof ApiError) || error.field === undefined || error.status !== 400) throw error;
      const { t } = pages.of(request);
      return render(request, reply, checkout, 400, { values, errors: { [error.field]: t.fieldError(refusalOf(error, values)) } });
    }
    await keepPayerLanguage(context, { businessId: checkout.business.id, livemode: checkout.checkout.livemode }, paymentId, pages.of(request).t.lang);
    return reply.redirect(`/pay/${encodeURIComponent(paymentId)}`, 303);
  });

  // What the buy button shows: the checkout's label (or "Pay <price>", "Plans from <price>"), name and theme, public
  // facts of the checkout, readable by any site. Always JSON with CORS, so the button can tell an
  // unknown or deleted checkout (and show nothing) from a network failure (and keep its link).
  scope.get('/c/:slug/button.json', async (request, reply) => {
    reply.header('Access-Control-Allow-Origin', '*');
    reply.header('Cross-Origin-Resource-Policy', 'cross-origin');
    const found = await readCheckoutView(context.db, slugOf(request));
    if (!found) return reply.code(404).send({ error: { code: 'not_found', message: 'There is no checkout at this address.' } });
    if (!takesBuyers(found)) return reply.code(410).send({ error: { code: 'checkout_inactive', message: 'This checkout takes no new buyers.' } });
    const { checkout } = found;
    const { t } = pages.of(request);
    // A pricing table's price is its lowest plan's: without a label its button says plans start there.
    const from = price(t, checkout.amount_minor, checkout.currency);
    return { label: checkout.button_label ?? (checkout.kind === 'pricing_table' ? t.plansFrom(from) : t.payAmount(from)), name: checkout.name, theme: checkout.theme };
  });
}

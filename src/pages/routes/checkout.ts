import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../core/errors.ts';
import { formatAmount } from '../../core/money.ts';
import { buyCheckout, readCheckoutView, type CheckoutView } from '../../resources/payer/checkout.ts';
import { formValues, type PayerPages } from '../requests.ts';
import { checkoutClosedPage, checkoutPage } from '../views/checkout.ts';
import { detailsFrom, type FieldErrors, type FormValues } from '../views/details.ts';
import { price } from '../views/frame.ts';

// A checkout's hosted page (spec 2.2 url, /c/<slug>): buying it makes the buyer's own payment and
// order and goes on to that payment's page; and what the buy button (embed.js) reads of it.

export function registerCheckoutRoutes(scope: FastifyInstance, pages: PayerPages): void {
  const { context } = pages;
  const view = async (request: FastifyRequest): Promise<CheckoutView> => {
    const found = await readCheckoutView(context.db, (request.params as { slug: string }).slug);
    if (!found) throw new ApiError('not_found', 'There is no checkout at this address.');
    return found;
  };
  const scopeOf = (checkout: CheckoutView) => `checkout:${checkout.checkout.id}`;
  const render = (request: FastifyRequest, reply: FastifyReply, checkout: CheckoutView, status = 200, retry?: { values: FormValues; errors: FieldErrors }) => {
    const { t } = pages.of(request);
    if (!checkout.checkout.active) return pages.send(request, reply, 410, checkoutClosedPage({ t, view: checkout }));
    const token = pages.forms.tokenFor(request, reply, scopeOf(checkout));
    const action = `/c/${encodeURIComponent(checkout.checkout.slug)}`;
    return pages.send(request, reply, status, checkoutPage({ t, view: checkout, action, values: retry?.values ?? {}, errors: retry?.errors ?? {} }), token);
  };

  scope.get('/c/:slug', async (request, reply) => render(request, reply, await view(request)));

  scope.post('/c/:slug', async (request, reply) => {
    const checkout = await view(request);
    const values = formValues(pages.forms.check(request, scopeOf(checkout)));
    pages.admitForm(request);
    let paymentId: string;
    try {
      pages.gate.admitStart({ businessId: checkout.business.id });
      paymentId = await buyCheckout(context, checkout, detailsFrom(values, checkout.checkout.collect));
    } catch (error) {
      if (!(error instanceof ApiError) || error.field === undefined || error.status !== 400) throw error;
      const { t } = pages.of(request);
      return render(request, reply, checkout, 400, { values, errors: { [error.field]: t.fieldError(error.code, error.message) } });
    }
    return reply.redirect(`/pay/${encodeURIComponent(paymentId)}`, 303);
  });

  // The buy button's label, name and theme; any site's button may read it (public facts of the checkout).
  scope.get('/c/:slug/button.json', async (request, reply) => {
    const { checkout } = await view(request);
    const { t } = pages.of(request);
    reply.header('Access-Control-Allow-Origin', '*');
    reply.header('Cross-Origin-Resource-Policy', 'cross-origin');
    if (!checkout.active) return reply.code(410).send({ error: { code: 'checkout_inactive', message: 'This checkout no longer takes new buyers.' } });
    return {
      name: checkout.name,
      label: checkout.button_label ?? t.payAmount(price(t, checkout.amount_minor, checkout.currency)),
      amount: formatAmount(checkout.amount_minor),
      currency: checkout.currency,
      theme: checkout.theme,
      url: `${context.config.baseUrl}/c/${encodeURIComponent(checkout.slug)}`,
    };
  });
}

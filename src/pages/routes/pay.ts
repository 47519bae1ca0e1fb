import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { VNode } from 'preact';
import { ApiError } from '../../core/errors.ts';
import { chooseProvider } from '../../resources/payer/choose-provider.ts';
import { BUYER_OUTCOMES, simulateAsBuyer, type BuyerOutcome } from '../../resources/payer/simulate.ts';
import { startAsBuyer } from '../../resources/payer/start.ts';
import { keepPayerLanguage } from '../../resources/payer/language.ts';
import { successUrlFor } from '../../resources/payer/success-url.ts';
import { buyerOf, payerViewKey, readPayerView, type PayerView } from '../../resources/payer/view.ts';
import { offerFor, waysToPay } from '../../resources/payer/ways.ts';
import { findProvider } from '../../resources/providers/catalogue.ts';
import { formValues, type PayerPages } from '../requests.ts';
import { detailsFrom, detailsOf, refusalOf, type FieldErrors, type FormValues } from '../views/details.ts';
import { payChoosePage } from '../views/pay-choose.ts';
import { payClosedPage, payFailedPage, payHeldPage, payPaidPage, payUnavailablePage } from '../views/pay-outcome.ts';
import { payPendingPage } from '../views/pay-pending.ts';
import { payStartPage } from '../views/pay-start.ts';
import { testProviderPage } from '../views/test-provider.ts';
import { timeLeft } from '../views/time-left.ts';
import { walletOf } from '../views/wallet-of.ts';

// The payer page of a payment link or checkout session (spec 2.1 url): one address that shows
// the step the payment is at, and the forms that move it (each handler: read the payment, call a
// verb as its buyer, go back to the page).

const paths = (id: string) => {
  const page = `/pay/${encodeURIComponent(id)}`;
  return {
    page, start: `${page}/start`, provider: `${page}/provider`, test: `${page}/test`, details: `${page}?step=details`, choose: `${page}?step=choose`,
    declined: `${page}?step=declined`, testProvider: (provider: string) => `${page}/test-provider/${encodeURIComponent(provider)}`,
  };
};

export function registerPayRoutes(scope: FastifyInstance, pages: PayerPages): void {
  const { context } = pages;
  // Each coin's token as the processor watches it (the native contracts unless configured otherwise).
  const tokenContracts = new Map(context.config.networks.flatMap((network) => network.tokens.map((token) => [token.coin, token.address] as const)));
  const view = async (request: FastifyRequest): Promise<PayerView> => {
    const found = await readPayerView(context.db, { id: (request.params as { id: string }).id }, context.clock.now());
    if (!found) throw new ApiError('not_found', 'There is no payment at this address.');
    return found;
  };

  /** The page of the payment's step; the start form again with what was typed and what was wrong. */
  const render = async (request: FastifyRequest, reply: Parameters<PayerPages['send']>[1], payment: PayerView, status = 200, retry?: { values: FormValues; errors: FieldErrors }) => {
    const { t } = pages.of(request);
    const token = pages.forms.tokenFor(request, reply, payment.id);
    const at = paths(payment.id);
    const { step, coin } = request.query as { step?: unknown; coin?: unknown };
    // After a declined card the buyer chooses again, told why they are back.
    const choosing = step === 'choose' || step === 'declined';
    // What can be offered now (Live: the networks a healthy processor watches); nothing for a closed payment.
    const offer = payment.status === 'open' || payment.status === 'pending' ? await offerFor(context, payment) : null;
    // The coin asked for, when it is one offered (anything else shows the first): never free text in the kept page's key.
    const asked = offer?.coins.find((served) => served === coin) ?? null;
    // The time left in words: it changes once a minute at most until the last minute, so kept pages stay few.
    const left = payment.status === 'open' ? timeLeft(t, payment.expiresAt.getTime() - context.clock.now().getTime()) : null;
    // A page is a function of the payment, the step and coin asked for, the offer and the time left: kept, unless it shows what was typed.
    const kept = retry === undefined && status === 200
      ? `${JSON.stringify([choosing || step === 'details' ? step : null, asked, offer?.coins ?? null, offer?.delayed ?? null, offer?.refused?.code ?? null, left])}\u0000${payerViewKey(payment)}`
      : null;
    const send = (make: () => VNode) => kept ? pages.sendKept(request, reply, kept, make, token) : pages.send(request, reply, status, make(), token);
    switch (payment.status) {
      case 'open':
      case 'pending': {
        // Live and nothing could receive the money: said in words, never a form or an address (only
        // before an address was shown: offerFor keeps a shown address whatever the processor's health).
        if (payment.status === 'open' && offer?.refused) return send(() => payUnavailablePage({ t, view: payment }));
        if (payment.status === 'open' && (payment.startedAt === null || step === 'details' || retry)) {
          return send(() => payStartPage({ t, view: payment, action: at.start, values: retry?.values ?? detailsOf(payment), errors: retry?.errors ?? {}, timeLeft: left }));
        }
        if (payment.status === 'pending' && !choosing) {
          const testProvider = payment.livemode || !payment.provider ? null : at.testProvider(payment.provider);
          return send(() => payPendingPage({ t, view: payment, paths: { self: at.page, choose: at.choose, testProvider }, timeLeft: left }));
        }
        const ways = waysToPay(payment, context.config.providers, offer?.coins ?? [], offer?.delayed ?? []);
        const coinPath = (chosen: string) => `${at.page}?coin=${encodeURIComponent(chosen)}`;
        return send(() => payChoosePage({
          t, view: payment, paths: { provider: at.provider, details: at.details, test: at.test, coin: coinPath },
          providers: ways.providers, wallet: walletOf(t, payment, ways.wallet, asked, tokenContracts), declined: step === 'declined', timeLeft: left,
          delayed: offer?.delayed ?? [],
        }));
      }
      case 'paid':
        return send(() => payPaidPage({ t, view: payment, next: successUrlFor(payment) }));
      case 'held':
        return send(() => payHeldPage({ t, view: payment }));
      case 'failed':
        return send(() => payFailedPage({ t, view: payment }));
      case 'expired':
        // Test mode: money a started buyer sent can still arrive late (spec 3), played out here.
        return send(() => payClosedPage({ t, view: payment, testAction: !payment.livemode && payment.startedAt !== null ? at.test : null }));
    }
  };

  /**
   * Whether the payment has moved past the states a step acts on (paid in another tab, canceled
   * meanwhile, a page kept open): then the buyer is shown the page as it is now, nothing done.
   */
  const movedPast = (payment: PayerView, acts: ReadonlyArray<PayerView['status']>) => !acts.includes(payment.status);
  const UNPAID = ['open', 'pending'] as const;

  scope.get('/pay/:id', async (request, reply) => render(request, reply, await view(request)));

  // What the page's script polls: the status alone, the same read as the page's.
  scope.get('/pay/:id/status', async (request) => ({ status: (await view(request)).status }));

  scope.post('/pay/:id/start', async (request, reply) => {
    const payment = await view(request);
    const values = formValues(pages.forms.check(request, payment.id));
    if (movedPast(payment, ['open'])) return reply.redirect(paths(payment.id).page, 303);
    try {
      await startAsBuyer(context, payment, detailsFrom(values, payment.collect), () => pages.admitStart(request, buyerOf(payment)));
      await keepPayerLanguage(context, buyerOf(payment), payment.id, pages.of(request).t.lang);
    } catch (error) {
      // A refused field: the form again, with what was typed and what is wrong beside the field.
      if (!(error instanceof ApiError) || error.field === undefined || error.status !== 400) throw error;
      const { t } = pages.of(request);
      return render(request, reply, payment, 400, { values, errors: { [error.field]: t.fieldError(refusalOf(error, values)) } });
    }
    return reply.redirect(paths(payment.id).page, 303);
  });

  scope.post('/pay/:id/provider', async (request, reply) => {
    const payment = await view(request);
    const values = formValues(pages.forms.check(request, payment.id));
    const at = paths(payment.id);
    if (movedPast(payment, UNPAID)) return reply.redirect(at.page, 303);
    const provider = values.provider ?? '';
    const target = await chooseProvider(context, payment, provider, { testProvider: at.testProvider(provider), returnUrl: `${context.config.baseUrl}${at.page}`, buyerIp: request.ip });
    return reply.redirect(target, 303);
  });

  // Test mode: what the buyer's wallet could do, without a key.
  scope.post('/pay/:id/test', async (request, reply) => {
    const payment = await view(request);
    const values = formValues(pages.forms.check(request, payment.id));
    const outcome = values.outcome as BuyerOutcome;
    if (!BUYER_OUTCOMES.includes(outcome) || outcome === 'declined') throw new ApiError('invalid_outcome', 'Choose what happens to the money.');
    // Money may still arrive at a closed payment (spec 3: late); a paid or held one takes no more.
    if (movedPast(payment, [...UNPAID, 'expired'])) return reply.redirect(paths(payment.id).page, 303);
    await simulateAsBuyer(context, payment, outcome);
    return reply.redirect(paths(payment.id).page, 303);
  });

  // Test mode's stand-in for the card provider the buyer chose.
  const testProvider = async (request: FastifyRequest) => {
    const payment = await view(request);
    const provider = findProvider((request.params as { provider: string }).provider);
    if (payment.livemode || !provider || payment.provider !== provider.id) throw new ApiError('not_found', 'There is no such page.');
    return { payment, provider };
  };
  scope.get('/pay/:id/test-provider/:provider', async (request, reply) => {
    const { payment, provider } = await testProvider(request);
    const at = paths(payment.id);
    if (movedPast(payment, UNPAID)) return reply.redirect(at.page, 303);
    const token = pages.forms.tokenFor(request, reply, payment.id);
    return pages.send(request, reply, 200, testProviderPage({ t: pages.of(request).t, view: payment, provider, action: at.testProvider(provider.id), back: at.page }), token);
  });
  scope.post('/pay/:id/test-provider/:provider', async (request, reply) => {
    const { payment, provider } = await testProvider(request);
    const values = formValues(pages.forms.check(request, payment.id));
    const outcome = values.outcome as BuyerOutcome;
    if (outcome !== 'paid' && outcome !== 'underpaid' && outcome !== 'declined') throw new ApiError('invalid_outcome', 'Choose what happens to the card payment.');
    if (movedPast(payment, UNPAID)) return reply.redirect(paths(payment.id).page, 303);
    await simulateAsBuyer(context, payment, outcome, provider.id);
    // A declined card changes nothing (spec 3 rule 4): back to the ways to pay, saying so.
    return reply.redirect(outcome === 'declined' ? paths(payment.id).declined : paths(payment.id).page, 303);
  });
}

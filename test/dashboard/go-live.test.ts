import { describe, expect, it } from 'vitest';
import { appWithChromium, ownerSignedIn } from '../support/browser-app.ts';
import { seriousViolations } from '../support/accessibility.ts';
import { reportProcessorStatus } from '../support/processor-status.ts';
import { asOperator } from '../support/operator.ts';
import { createApiKey } from '../../src/resources/api-keys/create.ts';

// The go-live checklist on the dashboard's Live settings (issue 22, must-have 7), in Chromium:
// each item says Done or To do in words, what to do next and where, from what is really there
// (the payout wallet, the processor's reports, the card providers' keys, Live endpoints). Axe
// finds nothing serious in either theme, on a desktop or a phone.

const app = appWithChromium({ RATE_LIMITS: 'off', MOONPAY_API_KEY: 'pk_live_kestrel0123456789', MOONPAY_SECRET_KEY: 'sk_live_moonpay_secret_0123456789' });

describe('the go-live checklist', () => {
  it('shows each item\'s state, and the truth about taking payments', async () => {
    const { page, id } = await ownerSignedIn(app, 'Kestrel Coffee Roasters');
    const settings = `${app.t.config.baseUrl}/dashboard/businesses/${id}/live/settings`;
    await page.goto(settings);
    const checklist = page.getByRole('region', { name: 'Go-live checklist' });
    const item = (title: string) => checklist.getByRole('listitem').filter({ has: page.getByRole('heading', { name: title }) });

    // Nothing reported yet: Live buyers cannot pay, and the page says so.
    await expect(page.getByText('The account takes payments.').count()).resolves.toBe(0);
    await expect(page.getByText(/Live buyers cannot pay now: no network is watched by a healthy payment processor/).count()).resolves.toBe(1);
    await expect(checklist.getByText('2 of 4 still to do.').count()).resolves.toBe(1);
    await expect(item('Done: Payout wallet').count()).resolves.toBe(1);
    await expect(item('To do: Networks watched by a healthy processor').getByText('No processor has reported yet.').count()).resolves.toBe(1);
    await expect(item('Done: Card providers').getByText(/through MoonPay/).count()).resolves.toBe(1);
    const endpoints = item('To do: A Live webhook endpoint').getByRole('link', { name: 'Add a Live webhook endpoint' });
    await expect(endpoints.getAttribute('href')).resolves.toBe(`/dashboard/businesses/${id}/live/webhooks`);

    // Polygon healthy, Base not; and a Live endpoint.
    await reportProcessorStatus(app.t, { networks: ['polygon', { network: 'base', healthy: false, problem: 'Every RPC URL of base answers 429.' }] });
    const live = (await createApiKey.run(await asOperator(app.t.context, id, true), {})).secret;
    expect((await app.t.request('POST', '/v1/webhook_endpoints', { key: live, body: { url: 'https://hooks.kestrel.example/live' } })).status).toBe(201);
    await page.reload();
    await expect(page.getByText('The account takes payments.').count()).resolves.toBe(1);
    await expect(checklist.getByText('Everything Live needs is in place.').count()).resolves.toBe(1);
    const networks = item('Done: Networks watched by a healthy processor');
    await expect(networks.getByText('Buyers are offered Polygon.').count()).resolves.toBe(1);
    await expect(networks.getByText(/Polygon \(USDC\): watched and healthy; last reported/).count()).resolves.toBe(1);
    await expect(networks.getByText(/Base \(USDC\): not healthy, "Every RPC URL of base answers 429\."/).count()).resolves.toBe(1);
    await expect(networks.locator('time').count()).resolves.toBe(2);
    await expect(item('Done: A Live webhook endpoint').getByText('One endpoint receives Live events.').count()).resolves.toBe(1);

    for (const colorScheme of ['light', 'dark'] as const) {
      for (const width of [1280, 360]) {
        await page.emulateMedia({ colorScheme });
        await page.setViewportSize({ width, height: 800 });
        expect(await seriousViolations(page), `${colorScheme} ${width}`).toEqual([]);
        expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `no sideways scroll at ${width}`).toBe(true);
      }
    }

    // The Test settings have no checklist: Test's networks are simulated.
    await page.goto(settings.replace('/live/', '/test/'));
    await expect(page.getByRole('region', { name: 'Go-live checklist' }).count()).resolves.toBe(0);
    await expect(page.getByText('The account takes payments.').count()).resolves.toBe(1);
    await page.close();
  });
});

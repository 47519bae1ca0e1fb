import type { Page } from 'playwright-core';

// Going to an area of a business the way a person does at a desktop width: open its group of
// the navigation (a disclosure), then follow the area's link.

export async function openArea(page: Page, group: string, area: string): Promise<void> {
  await page.locator('.nav-groups summary', { hasText: group }).click();
  await page.locator('.nav-groups').getByRole('link', { name: area, exact: true }).click();
}

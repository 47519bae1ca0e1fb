// What `npm start` prints once it listens: where the dashboard is and the next command, so a
// first run never leaves the person guessing (the README's quick start shows the same lines).

const CLI = 'npm run --silent cli --';

/** The lines after the listener is up; `hasBusiness`: the database has a business already. */
export function startupLines(baseUrl: string, hasBusiness: boolean): string {
  const lines = [
    '',
    `Payment Service is running at ${baseUrl} (API ${baseUrl}/v1, reference ${baseUrl}/docs).`,
    `Dashboard: ${baseUrl}/dashboard`,
    '',
  ];
  if (!hasBusiness) {
    lines.push('No business yet. Next, create a demo business, a Test key and the command that signs its owner in:', '', `  ${CLI} demo`, '');
  } else {
    lines.push(
      `Sign in to the dashboard with a link:   ${CLI} login-link --email YOUR_EMAIL`,
      `See the businesses and their owners:    ${CLI} business list`,
      `Create an API key:                      ${CLI} keys create --business BUSINESS_ID --mode test`,
      '',
    );
  }
  return lines.join('\n');
}

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';

// Debian's Chromium for the one test that drives a real browser. Installed from Debian's
// packages when missing and this is root (CI and the project's machines are), so `npm test`
// needs nothing installed by hand; elsewhere the test says how to get it.

export const CHROMIUM = '/usr/bin/chromium';

// As the machine's notes advise: headless, no sandbox as root, and none of Chromium's own
// network chatter (this machine's network is closed).
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export function ensureChromium(): string {
  if (existsSync(CHROMIUM)) return CHROMIUM;
  if (userInfo().uid !== 0 || !existsSync('/usr/bin/apt-get')) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (apt-get install chromium) to run the browser test.`);
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { env, stdio: 'ignore', timeout: 300_000 });
  execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { env, stdio: 'ignore', timeout: 600_000 });
  if (!existsSync(CHROMIUM)) throw new Error(`apt-get installed chromium but ${CHROMIUM} is not there.`);
  return CHROMIUM;
}

import { hostOf, isInternalHostname, isIpLiteral, isLoopbackAddress, isLoopbackHost, isPublicAddress, type Resolver } from './address-policy.ts';
import { portOf, type OwnPorts } from './own-ports.ts';

// Where the service may send a request (webhooks, client metadata documents): one check, made
// when an address is given (an endpoint created or edited) and again at every send. The name is
// resolved once and every answer vetted; a send then connects only to the vetted addresses.

/**
 * Why a request was not made or did not complete: what kind of fault (an address refused, or the
 * request failed), and a sentence naming it (never an internal address).
 */
export class Refused extends Error {
  readonly fault: 'invalid' | 'credentials' | 'scheme' | 'not_public' | 'own_port' | 'failed';
  constructor(fault: Refused['fault'], reason: string) {
    super(reason);
    this.fault = fault;
  }
}

export interface Destination {
  url: URL;
  /** Every answer of the one resolution, each vetted; null when the name did not resolve and that was accepted. */
  addresses: string[] | null;
}

export interface DestinationRules {
  /** Live destinations must be public; Test ones may also be this machine when testLoopback is on. */
  livemode: boolean;
  testLoopback: boolean;
  /** The service's own ports on this machine: never a destination, even where Test may use localhost. */
  ownPorts: Pick<OwnPorts, 'has'>;
  resolve: Resolver;
  /**
   * A name that does not resolve now: refused for a send (there is nowhere to connect), accepted
   * when an address is given (it is checked again at every send).
   */
  whenUnresolved: 'refuse' | 'accept';
}

/** The vetted destination of `text`, or Refused. */
export async function vetDestination(text: string, rules: DestinationRules): Promise<Destination> {
  if (!URL.canParse(text)) throw new Refused('invalid', 'the address is not a valid URL');
  const url = new URL(text);
  if (url.username !== '' || url.password !== '') throw new Refused('credentials', 'the address contains credentials');
  const host = hostOf(url);
  const loopbackInTest = rules.testLoopback && !rules.livemode && isLoopbackHost(host);
  if (url.protocol !== 'https:' && !(loopbackInTest && url.protocol === 'http:')) throw new Refused('scheme', `${url.protocol} addresses are not sent to`);
  // Loopback names and literals are the only way to this machine (every other answer must be
  // public), so the port is checked before resolving: `localhost` means here, whatever it resolves to.
  if (loopbackInTest && rules.ownPorts.has(portOf(url))) {
    throw new Refused('own_port', `port ${portOf(url)} on this machine is one of the service's own listeners`);
  }

  if (isIpLiteral(host)) {
    if (loopbackInTest || isPublicAddress(host)) return { url, addresses: [host] };
    throw new Refused('not_public', `${host} is not a public internet address`);
  }
  if (!loopbackInTest && isInternalHostname(host)) throw new Refused('not_public', `${host} is an internal host name`);
  let answers: string[];
  try {
    answers = await rules.resolve(host);
  } catch {
    answers = [];
  }
  if (answers.length === 0) {
    if (rules.whenUnresolved === 'accept') return { url, addresses: null };
    throw new Refused('not_public', `the name ${host} did not resolve`);
  }
  // Every answer must pass, not just the one used: a name that also points inside is refused. The
  // reason does not repeat the address (an internal resolver's answers are nobody's business).
  const allowed = loopbackInTest ? isLoopbackAddress : isPublicAddress;
  if (answers.some((address) => !allowed(address))) {
    throw new Refused('not_public', `${host} resolves to an address that is not ${loopbackInTest ? 'on this machine' : 'on the public internet'}`);
  }
  return { url, addresses: [...new Set(answers)].sort() };
}

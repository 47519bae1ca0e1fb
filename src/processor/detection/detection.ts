import type { Clock } from '../../core/clock.ts';
import type { NetworkConfig } from '../../core/networks-config.ts';
import { StartupError } from '../../core/errors.ts';
import type { Db } from '../../db/database.ts';
import { publicText } from '../../core/public-text.ts';
import { ChainClient, RpcUnavailable, type ChainClientOptions } from '../chain/chain-client.ts';
import { ChainIdMismatch, Detector, type DetectorOptions } from './detector.ts';
import { listenForDepositAddresses, WatchedAddresses } from './watched-addresses.ts';

// Detection as the processor runs it: one watch list for every network, learnt through NOTIFY;
// one detector per configured network, each checked against its chain id before anything is
// scanned (a node that does not answer at start is checked by the network's first scan: an outage
// never stops the process); the processor scans each network whose lock it holds (processor.ts).

export const DEFAULT_POLL_MS = 2_000;

export interface Detection {
  watched: WatchedAddresses;
  detectors: Detector[];
  /** Scans every network once now. */
  scanAll(): Promise<void>;
  stop(): Promise<void>;
}

export async function startDetection(deps: { db: Db; databaseUrl: string; clock: Clock; networks: NetworkConfig[] }, options: {
  rpc?: ChainClientOptions;
  detector?: DetectorOptions;
  log?: (line: string) => void;
} = {}): Promise<Detection> {
  const log = options.log ?? ((line: string) => console.error(line));
  const watched = new WatchedAddresses();
  const detectors = deps.networks.map((network) => new Detector(
    { db: deps.db, network, client: new ChainClient(network, options.rpc), watched, clock: deps.clock }, { log, ...options.detector },
  ));
  await Promise.all(detectors.map(async (detector) => {
    try {
      await detector.probe();
    } catch (error) {
      // A node of another chain: said in one sentence, and nothing is scanned.
      if (error instanceof ChainIdMismatch) throw new StartupError(error.message);
      // A node down is an outage, not a mistake: the network waits (its first scan checks the chain id), the rest runs.
      if (!(error instanceof RpcUnavailable)) throw error;
      log(`[processor] ${publicText(error)}. Live payments on ${detector.network.name} are not offered until it answers; retried with backoff (processor status shows it).`);
    }
  }));
  const listener = listenForDepositAddresses(deps.databaseUrl, deps.db, deps.clock, watched, { log });
  await listener.ready;

  const scanAll = async () => {
    await Promise.all(detectors.map(async (detector) => {
      try {
        await detector.scan();
      } catch (error) {
        // The next poll tries again from the same cursor: nothing is lost by a failed scan.
        log(`[processor] ${detector.network.name}: scan failed: ${publicText(error)}`);
      }
    }));
  };
  return {
    watched,
    detectors,
    scanAll,
    async stop() {
      await listener.close();
    },
  };
}

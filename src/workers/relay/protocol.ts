/**
 * The relay worker's door: what the main thread tells it and what it reports back.
 * Control messages cross as decoded objects; frames and terminal bytes cross as bytes.
 */
import type { MessagePort } from 'node:worker_threads';
import type { ClientMessage } from '../../shared/protocol.js';
import type { FanoutCounters } from './fanout.js';
import type { ViewerGrant } from '../../shared/grants.js';
import type { TokenRecord } from './tokens.js';
import type { CdpFromRelay, CdpToRelay } from './cdp-protocol.js';

export interface RelayWorkerData {
  host: string;
  port: number;
  /** This run's agents' key: MCP and /metrics; refused on the viewer socket. */
  agentKey: string;
  /** This run's printed viewer link's token: a person's, control of the whole org. */
  viewerToken: string;
  /** The tokens made with `forge token new`, hashed (see tokens.ts). */
  tokens: TokenRecord[];
  org: string;
  /** Built web client directory, served at /. */
  webDir: string;
  /** Loopback port of the main thread's MCP endpoint; /mcp is proxied there. */
  mcpPort: number;
  /** Secret that signs hand-off links (see links.ts). */
  linkSecret: string;
  /** The certificate and key (PEM files) when the relay serves HTTPS and WSS. */
  tls?: { certFile: string; keyFile: string };
  /** `[server] public_url`: its host and origin are served beside the loopback names. */
  publicUrl?: string;
}

/** main → relay */
export type ToRelay =
  | { t: 'send'; viewers: number[]; data: Uint8Array }
  /** Binary frame or terminal bytes for viewers. */
  | { t: 'send_binary'; viewers: number[]; data: Uint8Array }
  | { t: 'close_viewer'; viewer: number; code: number; reason: string }
  /** Prometheus lines from the main thread, merged into /metrics. */
  | { t: 'gauges'; text: string }
  /** The state dir's tokens changed: the door now holds these, and closes the sockets of any token gone. */
  | { t: 'tokens'; records: TokenRecord[] }
  /**
   * A host's frames: the encoder's port and WebpRing (see cdp/pipeline.ts relaySource()). `source`
   * is the main thread's name for it; transfer `port`.
   */
  | { t: 'frame_source'; source: number; port: MessagePort; webpRing: SharedArrayBuffer; webpRingSlots: number; webpSlotBytes: number }
  | { t: 'frame_source_end'; source: number }
  /** Viewer `viewer` now watches frame id `tab` of `source` (null: nothing); it gets a keyframe first. */
  | { t: 'watch'; viewer: number; source: number; tab: number | null }
  /** Asks for the fan-out counters and the relay thread's CPU time. */
  | { t: 'fanout_stats' }
  /** The raw CDP door's sockets (see cdp-protocol.ts). */
  | CdpToRelay
  | { t: 'stop' };

/** relay → main */
export type FromRelay =
  | { t: 'listening'; port: number }
  | { t: 'listen_failed'; message: string }
  /** A viewer authenticated: `grant` is what its credential may do (a person's token, or a hand-off link). */
  | { t: 'open'; viewer: number; org: string; query: string; grant: ViewerGrant }
  | { t: 'message'; viewer: number; msg: ClientMessage }
  | { t: 'close'; viewer: number }
  | { t: 'fanout_stats'; counters: FanoutCounters; cpuMs: number }
  /** A client fetched the saved download at `path` whole: it is the person's now, so dropping it later loses nothing. */
  | { t: 'download_fetched'; path: string }
  /** The raw CDP door's sockets (see cdp-protocol.ts). */
  | CdpFromRelay
  | { t: 'stopped' };

/**
 * The relay worker's door: what the main thread tells it and what it reports back.
 * Control messages cross as decoded objects; frames and terminal bytes cross as bytes.
 */
import type { MessagePort } from 'node:worker_threads';
import type { UncheckedMessage } from '../../shared/protocol.js';
import type { FanoutCounters } from './fanout.js';
import type { ViewerGrant } from '../../shared/grants.js';
import type { TokenRecord } from './tokens.js';
import type { TermViewInfo } from './term-fanout.js';
import type { ClusterConfig } from '../../main/config.js';
import type { CdpFromRelay, CdpToRelay } from './cdp-protocol.js';
import type { HeapSlot } from '../thread-heaps.js';

export interface RelayWorkerData {
  /** Where this thread writes its heap for /metrics. */
  heap?: HeapSlot;
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
  /** This process's public link key as published (SPKI DER, base64url): its hand-off and download links are checked with it (see link-keys.ts). */
  linkKey: string;
  /** The state dir's profiles folder: the only place a download link reads from (see download-path.ts). */
  profilesRoot: string;
  /** The certificate and key (PEM files) when the relay serves HTTPS and WSS. */
  tls?: { certFile: string; keyFile: string };
  /** `[server] public_url`: its host and origin are served beside the loopback names. */
  publicUrl?: string;
  /** `[cluster]`: the relay joins NATS itself, so frames between nodes never cross the main thread. */
  cluster?: ClusterConfig;
}

/** main → relay */
export type ToRelay =
  | { t: 'send'; viewers: number[]; data: Uint8Array }
  /** Binary frame or terminal bytes for viewers. */
  | { t: 'send_binary'; viewers: number[]; data: Uint8Array }
  /** One audio packet for the tab's controller; dropped when its socket already holds a backlog. */
  | { t: 'send_audio'; viewer: number; data: Uint8Array }
  | { t: 'close_viewer'; viewer: number; code: number; reason: string }
  /** Prometheus lines from the main thread, merged into /metrics. */
  | { t: 'gauges'; text: string }
  /** The state dir's tokens changed: the door now holds these, and closes the sockets of any token gone. */
  | { t: 'tokens'; records: TokenRecord[] }
  /**
   * A host's frames: the encoder's port and WebpRing (see main/browser/host/pipeline.ts relaySource()). `source`
   * is the main thread's name for it; transfer `port`.
   */
  | { t: 'frame_source'; source: number; port: MessagePort; webpRing: SharedArrayBuffer; webpRingSlots: number; webpSlotBytes: number }
  | { t: 'frame_source_end'; source: number }
  /** Viewer `viewer` now watches frame id `frame` of `source` (null: nothing); it gets a keyframe first. */
  | { t: 'watch'; viewer: number; source: number; frame: number | null }
  /** The pty worker's terminal port (see term-fanout.ts): every terminal's frames come in there. Transfer `port`. */
  | { t: 'term_source'; port: MessagePort }
  /** Viewer `viewer` is attached to terminal `term` (it gets a repaint, then live output), or detached (`view` null). */
  | { t: 'term_watch'; term: number; viewer: number; view: TermViewInfo | null }
  /** Who holds terminal `term`'s keyboard: a person's viewer, or null (the agent). */
  | { t: 'term_rules'; term: number; holder: number | null }
  /** A fresh repaint for one attached viewer. */
  | { t: 'term_repaint'; term: number; viewer: number }
  /** The terminal's new grid: the PTY is resized and every viewer repainted at it. */
  | { t: 'term_resize'; term: number; cols: number; rows: number }
  /** The terminal ended: its viewers get nothing more of it. */
  | { t: 'term_end'; term: number }
  /** Node `node` does (`on`) or no longer does watch frame id `frame` of `source`: its frames go out over NATS (see cluster/frame-bridge.ts). */
  | { t: 'frame_export'; node: string; source: number; frame: number; on: boolean }
  /** Viewer `viewer` now watches frame id `frame` of node `node`'s tab (null: nothing), its frames coming over NATS. */
  | { t: 'watch_remote'; viewer: number; node: string; frame: number | null }
  /** Viewer `viewer` here is served for viewer `remote` of node `node` (null: it left): its terminal frames go there (see cluster/term-bridge.ts). */
  | { t: 'guest'; viewer: number; node: string | null; remote: number }
  /** This node's viewer `viewer` is served by node `node` (null: here again): its terminal frames come from there. */
  | { t: 'served_by'; viewer: number; node: string | null }
  /** Asks for the fan-out counters and the relay thread's CPU time. */
  | { t: 'fanout_stats' }
  /** The raw CDP door's sockets (see cdp-protocol.ts). */
  | CdpToRelay
  | { t: 'stop' };

/** relay → main */
export type FromRelay =
  | { t: 'listening'; port: number }
  | { t: 'listen_failed'; message: string }
  /** An exception no handler caught in the relay: logged by main; the relay goes on serving every other socket. */
  | { t: 'fault'; message: string; stack?: string }
  /** A viewer authenticated: `grant` is what its credential may do (a person's token, or a hand-off link). */
  | { t: 'open'; viewer: number; org: string; query: string; grant: ViewerGrant }
  | { t: 'message'; viewer: number; msg: UncheckedMessage }
  | { t: 'close'; viewer: number }
  /** A viewer's terminal repaint was sent: from here it gets live output (its state line is the main thread's to send). */
  | { t: 'term_live'; term: number; viewer: number }
  | { t: 'fanout_stats'; counters: FanoutCounters; cpuMs: number }
  /** A client fetched the saved download at `path` whole: it is the person's now, so dropping it later loses nothing. */
  | { t: 'download_fetched'; path: string }
  /** The raw CDP door's sockets (see cdp-protocol.ts). */
  | CdpFromRelay
  | { t: 'stopped' };

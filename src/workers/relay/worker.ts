/**
 * The relay worker: uWebSockets.js serving the web client, /metrics, /mcp (proxied to the
 * main thread) and the viewer WebSocket at /ws. It owns the sockets; the main thread owns
 * the rules and tells it what to send to whom.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { reportHeap } from '../thread-heaps.js';
import { closeApp, listenExclusive, us_listen_socket_close, us_socket_local_port, type HttpRequest, type WebSocket, type us_listen_socket } from './uws.js';
import { makeApp, misdirected, relayNames } from './app.js';
import type { ServedNames } from './origin.js';
import { ASSET_HEADERS, PAGE_HEADERS, isPage, writeHeaders } from './headers.js';
import { loadStatic } from './static.js';
import { proxyToMcp } from './proxy.js';
import { TokenBook } from './tokens.js';
import { LinkKeys, readPublishedKey } from './link-keys.js';
import { AUTH_DEADLINE_MS, CLOSE_POLICY, CLOSE_TOO_BIG, CLOSE_UNAUTHORIZED, GRANT_SWEEP_MS, RateBound, SENTENCES, UNAUTH_MESSAGE_MAX_BYTES } from './door.js';
import type { ViewerGrant } from '../../shared/grants.js';
import { serveDownload, type DownloadDoor } from './downloads.js';
import type { FromRelay, RelayWorkerData, ToRelay } from './protocol.js';
import { decodeControl, encodeControl } from '../../shared/protocol.js';
import { SOCKET_INBOUND_MAX_BYTES, controlMessageMaxBytes, controlMessageTooBig } from '../../shared/limits.js';
import { Fanout, type FrameSource, type ViewerSink } from './fanout.js';
import { RingFrameSource } from './ring-source.js';
import { TermFanout, type PtyPort } from './term-fanout.js';
import { threadCpuMs } from './thread-cpu.js';
import type { FrameBridge } from '../../main/cluster/frame-bridge.js';
import type { TermBridge } from '../../main/cluster/term-bridge.js';
import type { LinkKeysFollow } from '../../main/cluster/links.js';
import { serveCdp } from './cdp-door.js';
import { nameThread } from '../thread-name.js';

nameThread('forge-relay');

/** Seconds a viewer socket may sit silent before uWS closes it; the client pings well inside it. */
const VIEWER_IDLE_TIMEOUT_S = 60;
/**
 * uWS's own inbound ceiling, bytes. Past it uWS drops the connection with no close frame (1006), so
 * it sits above forge's SOCKET_INBOUND_MAX_BYTES, which the message handler enforces with a 1009.
 */
const UWS_PAYLOAD_CEILING_BYTES = 2 * SOCKET_INBOUND_MAX_BYTES;
/** uWS's own backpressure cap per socket, bytes: the fan-out skips a viewer long before this. */
const VIEWER_MAX_BACKPRESSURE_BYTES = 8 * 1024 * 1024;

interface Viewer {
  id: number;
  org: string;
  /** Set once the socket showed a credential the door accepts. */
  grant?: ViewerGrant;
  query: string;
  closed: boolean;
  /** The unauthenticated socket's deadline for `hello`. */
  deadline?: NodeJS.Timeout;
  rate: RateBound;
}

const data = workerData as RelayWorkerData;
reportHeap(data.heap);
const port = parentPort!;
const post = (m: FromRelay): void => port.postMessage(m);

// A worker thread that ends with uWS's sockets open aborts the whole process (Node asserts its
// loop closed with open handles): one socket's bad message must never end every viewer's relay.
// What no handler caught is said to main, which logs it, and the relay goes on.
process.on('uncaughtException', (e: Error) => {
  try { post({ t: 'fault', message: String(e?.message ?? e), ...(e?.stack ? { stack: e.stack } : {}) }); } catch { /* main is gone */ }
});
const files = loadStatic(data.webDir);
const sockets = new Map<number, WebSocket<Viewer>>();
/** The keys links are checked with: this process's own, and with [cluster] every node's as the bridge sees them published. */
const linkKeys = new LinkKeys(readPublishedKey(data.linkKey)!, data.cluster?.node);
const book = new TokenBook({ agentKey: data.agentKey, viewerToken: data.viewerToken, linkKeys, records: data.tokens });
let nextViewerId = 1;
let listenSocket: us_listen_socket | null = null;
/** Set by the stop: a door that had not opened yet stays shut. */
let stopped = false;
/** The names the relay answers to, known once it listens. */
let names: ServedNames | undefined;
let mainGauges = '';
const fanout = new Fanout();
const frameSources = new Map<number, FrameSource>();
const termFanout = new TermFanout(
  (viewer) => {
    const ws = sockets.get(viewer);
    return ws ? { send: (b) => { ws.send(b, true); } } : termsUp?.sink(viewer);
  },
  (term, viewer) => post({ t: 'term_live', term, viewer }),
);
/** GET /download: one kept download a signed link names (see downloads.ts), on a cluster read through the node that kept it. */
const downloadDoor: DownloadDoor = {
  keys: linkKeys,
  profilesRoot: data.profilesRoot,
  ...(data.cluster ? { node: data.cluster.node } : {}),
  fetched: (path) => post({ t: 'download_fetched', path }),
};
/** With [cluster]: the frames to and from other nodes (loaded only then, so a lone forge never loads NATS). */
const bridge: Promise<FrameBridge> | undefined = data.cluster ? startBridge(data.cluster) : undefined;

async function startBridge(cfg: NonNullable<RelayWorkerData['cluster']>): Promise<FrameBridge> {
  const [{ connectNats }, { FrameBridge }, { TermBridge }, { DownloadBridge }, { followLinkKeys }] = await Promise.all([
    import('../../main/cluster/connection.js'), import('../../main/cluster/frame-bridge.js'), import('../../main/cluster/term-bridge.js'),
    import('../../main/cluster/download-bridge.js'), import('../../main/cluster/links.js'),
  ]);
  const nc = await connectNats(cfg, 'relay');
  // Other nodes' links open here once their keys are in: the door listens after this.
  linkKeysUp = await followLinkKeys(nc, linkKeys, { publish: false }).catch(async (e: unknown) => { await nc.close().catch(() => undefined); throw e; });
  termsUp = new TermBridge(nc, cfg.node, (viewer, bytes) => sendTo([viewer], bytes, true), (term, viewer, bytes) => { termFanout.ack(term, viewer, bytes); });
  const downloads = new DownloadBridge(nc, cfg.node, downloadDoor);
  downloadDoor.remote = (owner, token, name) => downloads.fetch(owner, token, name);
  return new FrameBridge(nc, cfg.node, fanout, (source) => frameSources.get(source));
}
let bridgeUp: FrameBridge | undefined;
/** With [cluster]: the watch keeping every node's published link key. */
let linkKeysUp: LinkKeysFollow | undefined;
/** With [cluster]: terminal frames to and from other nodes, on the same connection as the frames. */
let termsUp: TermBridge | undefined;
bridge?.then((b) => { bridgeUp = b; }, (e: Error) => post({ t: 'listen_failed', message: e.message }));

/** The frames this node sent to and took from other nodes, as /metrics names them. */
function clusterCounters(): string[] {
  if (!bridgeUp) return [];
  const c = bridgeUp.counters;
  return Object.entries({ frames_out: c.framesOut, bytes_out: c.bytesOut, frames_in: c.framesIn, frames_dropped: c.framesDropped })
    .map(([k, v]) => `# TYPE forge_cluster_${k}_total counter\nforge_cluster_${k}_total ${v}`);
}
/** The largest control message handed to the main thread so far, bytes on the wire: what its kind's bound lets through. */
let largestCrossedBytes = 0;
/** Counted here; the frame fan-out keeps its own (see `relayCounters`). `bytes_out`: control and terminal messages. */
const counters = { viewers_opened: 0, messages_in: 0, bytes_out: 0, bad_messages: 0, refused_sockets: 0, audio_packets: 0, audio_dropped: 0 };

/** The relay's counters as /metrics names them: frames sent to one viewer each, frames a viewer was skipped for, and bytes. */
/** Per watched tab (its frame id, which main's `forge_tab_encode_*` carry too) and per watched terminal. */
function perTabLines(): string[] {
  const tabs = fanout.watchedTabs();
  const terms = termFanout.watchedTerminals();
  const series = <T,>(name: string, type: string, rows: T[], label: (r: T) => string, value: (r: T) => number): string[] =>
    [`# TYPE ${name} ${type}`, ...rows.map((r) => `${name}{${label(r)}} ${value(r)}`)];
  const tab = (r: { frame: number }): string => `frame="${r.frame}"`;
  const term = (r: { term: number; number: number; seat: string }): string => `terminal="${r.number}",seat="${r.seat}"`;
  return [
    ...series('forge_tab_viewers', 'gauge', tabs, tab, (r) => r.viewers),
    ...series('forge_tab_frames_sent_total', 'counter', tabs, tab, (r) => r.sent),
    ...series('forge_tab_frames_skipped_total', 'counter', tabs, tab, (r) => r.skipped),
    ...series('forge_tab_bytes_out_total', 'counter', tabs, tab, (r) => r.bytes),
    ...series('forge_terminal_viewers', 'gauge', terms, term, (r) => r.viewers),
    ...series('forge_terminal_viewer_bytes_total', 'counter', terms, term, (r) => r.bytes),
  ];
}

function relayCounters(): Record<string, number> {
  const f = fanout.counters;
  return {
    viewers_opened: counters.viewers_opened,
    messages_in: counters.messages_in,
    bad_messages: counters.bad_messages,
    refused_sockets: counters.refused_sockets,
    audio_packets: counters.audio_packets,
    audio_dropped: counters.audio_dropped,
    frames_sent: f.viewerFrames,
    frames_skipped: f.skipped,
    patches_withheld: f.patchesWithheld,
    keyframes_asked: f.keyframesAsked,
    bytes_out: counters.bytes_out + f.bytesOut + termFanout.counters.bytes_out,
  };
}

function sendError(ws: WebSocket<Viewer>, message: string, forKind?: string, id?: number): void {
  ws.send(encodeControl({ t: 'error', message, ...(forKind ? { for: forKind } : {}), ...(id !== undefined ? { id } : {}) }), true);
}

function authed(ws: WebSocket<Viewer>, grant: ViewerGrant): void {
  const v = ws.getUserData();
  v.grant = grant;
  if (v.deadline) clearTimeout(v.deadline);
  v.deadline = undefined;
  sockets.set(v.id, ws);
  counters.viewers_opened++;
  post({ t: 'open', viewer: v.id, org: v.org, query: v.query, grant });
}

/** Ends a socket the door refuses, counted. */
function refuse(ws: WebSocket<Viewer>, code: number, reason: string): void {
  counters.refused_sockets++;
  ws.end(code, reason);
}

/** Closes every open socket whose grant no longer holds (a revoked token, an expired one or link). */
function sweepGrants(): void {
  const now = Date.now();
  for (const ws of sockets.values()) {
    const v = ws.getUserData();
    if (v.grant && !book.holds(v.grant, now)) ws.end(CLOSE_UNAUTHORIZED, SENTENCES.revoked);
  }
}
setInterval(sweepGrants, GRANT_SWEEP_MS).unref();

/** Whether a request carries an agent key (as a bearer token): what /metrics asks of an operator. */
function agentBearer(req: HttpRequest): boolean {
  const m = /^Bearer\s+(\S+)$/i.exec(req.getHeader('authorization'));
  const g = m ? book.agent(m[1]!) : undefined;
  return typeof g === 'object';
}

/** A socket's messages before it is authenticated: one small binary `hello` with a good token, else it is closed. */
function hello(ws: WebSocket<Viewer>, message: ArrayBuffer, isBinary: boolean): void {
  if (message.byteLength > UNAUTH_MESSAGE_MAX_BYTES) { counters.bad_messages++; refuse(ws, CLOSE_TOO_BIG, SENTENCES.unauthTooBig); return; }
  const decoded = isBinary ? decodeControl(new Uint8Array(message)) : undefined;
  const msg = decoded?.ok ? decoded.msg : undefined;
  const g = msg?.t === 'hello' && typeof msg.token === 'string' ? book.viewer(msg.token) : undefined;
  if (typeof g === 'object') { authed(ws, g); return; }
  counters.bad_messages++;
  refuse(ws, CLOSE_UNAUTHORIZED, g === 'agent' ? SENTENCES.agentKey : msg?.t === 'hello' ? SENTENCES.wrongToken : SENTENCES.noHello);
}

const app = makeApp(data.tls);

app.ws<Viewer>('/ws', {
  maxPayloadLength: UWS_PAYLOAD_CEILING_BYTES,
  idleTimeout: VIEWER_IDLE_TIMEOUT_S,
  maxBackpressure: VIEWER_MAX_BACKPRESSURE_BYTES,
  sendPingsAutomatically: true,
  upgrade: (res, req, context) => {
    if (misdirected(res, req, names, true)) return;
    const query = req.getQuery() ?? '';
    const token = new URLSearchParams(query).get('token');
    // A wrong token is refused at the door; a missing one may still come as the first message.
    if (token !== null) {
      const g = book.viewer(token);
      if (g === undefined || g === 'agent') {
        counters.refused_sockets++;
        res.writeStatus(g === 'agent' ? '403 Forbidden' : '401 Unauthorized').end(g === 'agent' ? SENTENCES.agentKey : SENTENCES.wrongToken);
        return;
      }
    }
    res.upgrade<Viewer>(
      { id: nextViewerId++, org: data.org, query, closed: false, rate: new RateBound() },
      req.getHeader('sec-websocket-key'),
      req.getHeader('sec-websocket-protocol'),
      req.getHeader('sec-websocket-extensions'),
      context,
    );
  },
  open: (ws) => {
    const v = ws.getUserData();
    const token = new URLSearchParams(v.query).get('token');
    const g = token !== null ? book.viewer(token) : undefined;
    if (typeof g === 'object') { authed(ws, g); return; }
    // No token in the URL: it has a short while to send hello, and nothing else is read meanwhile.
    v.deadline = setTimeout(() => { if (!v.closed && !v.grant) refuse(ws, CLOSE_UNAUTHORIZED, SENTENCES.noHello); }, AUTH_DEADLINE_MS);
  },
  message: (ws, message, isBinary) => {
    const v = ws.getUserData();
    if (v.closed) return;
    counters.messages_in++;
    if (!v.grant) { hello(ws, message, isBinary); return; }
    if (!v.rate.take()) {
      counters.bad_messages++;
      sendError(ws, SENTENCES.tooFast);
      ws.end(CLOSE_POLICY, SENTENCES.tooFast);
      return;
    }
    if (message.byteLength > SOCKET_INBOUND_MAX_BYTES) {
      counters.bad_messages++;
      ws.end(1009, `a message is limited to ${SOCKET_INBOUND_MAX_BYTES / (1024 * 1024)} MiB`);
      return;
    }
    if (!isBinary) {
      counters.bad_messages++;
      sendError(ws, 'control messages are binary msgpack; a text message was ignored', 'text');
      return;
    }
    const decoded = decodeControl(new Uint8Array(message));
    if (!decoded.ok) {
      counters.bad_messages++;
      sendError(ws, `${decoded.reason}; the message was ignored`);
      return;
    }
    const msg = decoded.msg;
    // Bulk only where the kind carries it (a paste, files): anything else this big is refused before it crosses.
    if (message.byteLength > controlMessageMaxBytes(msg.t)) {
      counters.bad_messages++;
      sendError(ws, controlMessageTooBig(msg.t), msg.t, typeof msg.id === 'number' && Number.isSafeInteger(msg.id) ? msg.id : undefined);
      return;
    }
    if (msg.t === 'hello') return;
    // A viewer that dropped its picture (it fell behind) is resynced here, where the frames are.
    if (msg.t === 'keyframe') { fanout.resync(v.id); return; }
    // An attached viewer's ack is flow, kept here where the frames are; any other is the main thread's to answer.
    if (msg.t === 'term_ack' && typeof msg.term === 'number' && termFanout.ack(msg.term, v.id, msg.bytes)) return;
    // One another node serves goes there, relay to relay, to the fan-out that counts it.
    if (msg.t === 'term_ack' && termsUp?.forwardAck(v.id, msg.term, msg.bytes)) return;
    if (message.byteLength > largestCrossedBytes) largestCrossedBytes = message.byteLength;
    post({ t: 'message', viewer: v.id, msg });
  },
  drain: (ws) => fanout.drained(ws.getUserData().id),
  close: (ws) => {
    const v = ws.getUserData();
    v.closed = true;
    if (v.deadline) clearTimeout(v.deadline);
    fanout.unwatch(v.id);
    termFanout.closed(v.id);
    termsUp?.servedElsewhere(v.id, null);
    if (sockets.delete(v.id)) post({ t: 'close', viewer: v.id });
  },
});

const cdp = serveCdp({ app, book, names: () => names, post });

app.any('/mcp', (res, req) => { if (!misdirected(res, req, names, true)) proxyToMcp(res, req, data.mcpPort); });

app.get('/download', (res, req) => { if (!misdirected(res, req, names, false)) serveDownload(res, req, downloadDoor); });

app.get('/metrics', (res, req) => {
  if (misdirected(res, req, names, false)) return;
  if (!agentBearer(req)) {
    res.cork(() => res.writeStatus('401 Unauthorized').writeHeader('www-authenticate', 'Bearer').end('/metrics needs the agents\' key as a bearer token\n'));
    return;
  }
  const lines = [
    '# TYPE forge_relay_viewers gauge',
    `forge_relay_viewers ${sockets.size}`,
    '# TYPE forge_relay_message_bytes_max gauge',
    `forge_relay_message_bytes_max ${largestCrossedBytes}`,
    ...Object.entries(relayCounters()).map(([k, v]) => `# TYPE forge_relay_${k}_total counter\nforge_relay_${k}_total ${v}`),
    ...Object.entries(termFanout.counters).map(([k, v]) => `# TYPE forge_terminal_${k}_total counter\nforge_terminal_${k}_total ${v}`),
    ...perTabLines(),
    ...clusterCounters(),
    mainGauges,
  ];
  res.cork(() => res.writeHeader('content-type', 'text/plain; version=0.0.4').end(lines.join('\n') + '\n'));
});

app.get('/*', (res, req) => {
  if (misdirected(res, req, names, false)) return;
  let url = req.getUrl();
  if (url === '/' || url === '/handoff' || url.startsWith('/handoff/')) url = '/index.html';
  else if (url === '/dashboard') url = '/dashboard.html';
  const f = files.get(url);
  res.cork(() => {
    if (!f) { res.writeStatus('404 Not Found').end('not found'); return; }
    writeHeaders(res, isPage(f.type) ? PAGE_HEADERS : ASSET_HEADERS).writeHeader('content-type', f.type).end(f.body);
  });
});

function socketSink(ws: WebSocket<Viewer>): ViewerSink {
  return {
    // uWS answers 1 when the whole message went to the kernel (0: backlog, 2: dropped).
    send: (b) => ws.send(b, true) === 1,
    buffered: () => ws.getBufferedAmount(),
    cork: (fn) => { ws.cork(fn); },
  };
}

function sendTo(viewers: number[], bytes: Uint8Array, binary: boolean): void {
  for (const id of viewers) {
    const ws = sockets.get(id);
    if (!ws) continue;
    ws.send(bytes, binary);
    counters.bytes_out += bytes.byteLength;
  }
}

/**
 * Unsent bytes above which an audio packet is dropped, bytes: ~5 packets. Late sound is worse than
 * a gap, and a socket this far behind is busy with a frame anyway.
 */
const AUDIO_SEND_BOUND_BYTES = 20 * 1024;

function sendAudio(viewer: number, bytes: Uint8Array): void {
  const ws = sockets.get(viewer);
  if (!ws) return;
  if (ws.getBufferedAmount() > AUDIO_SEND_BOUND_BYTES) { counters.audio_dropped++; return; }
  ws.send(bytes, true);
  counters.audio_packets++;
  counters.bytes_out += bytes.byteLength;
}

port.on('message', (m: ToRelay) => {
  switch (m.t) {
    case 'send': sendTo(m.viewers, m.data, true); break;
    case 'send_binary': sendTo(m.viewers, m.data, true); break;
    case 'send_audio': sendAudio(m.viewer, m.data); break;
    case 'close_viewer': sockets.get(m.viewer)?.end(m.code, m.reason); break;
    case 'gauges': mainGauges = m.text; break;
    case 'tokens': book.replace(m.records); sweepGrants(); break;
    case 'frame_source': {
      const source = new RingFrameSource(m.port, m.webpRing, m.webpRingSlots, m.webpSlotBytes);
      frameSources.set(m.source, source);
      fanout.addSource(source);
      break;
    }
    case 'frame_source_end': {
      const source = frameSources.get(m.source);
      frameSources.delete(m.source);
      if (source) fanout.removeSource(source);
      break;
    }
    case 'watch': {
      const ws = sockets.get(m.viewer);
      const source = frameSources.get(m.source);
      if (!ws || m.frame === null) { fanout.unwatch(m.viewer); break; }
      if (source) fanout.route(m.frame, source);
      fanout.watch(m.viewer, socketSink(ws), m.frame);
      break;
    }
    case 'frame_export': void bridge?.then((b) => b.exportFrames(m.node, m.source, m.frame, m.on)); break;
    case 'watch_remote': {
      const ws = sockets.get(m.viewer);
      void bridge?.then((b) => b.watchRemote(m.viewer, ws && socketSink(ws), m.node, m.frame));
      break;
    }
    case 'guest': void bridge?.then(() => termsUp?.guest(m.viewer, m.node, m.remote)); break;
    case 'served_by': void bridge?.then(() => termsUp?.servedElsewhere(m.viewer, m.node)); break;
    case 'term_source': termFanout.source(m.port as unknown as PtyPort); break;
    case 'term_watch': termFanout.watch(m.term, m.viewer, m.view); break;
    case 'term_rules': termFanout.rules(m.term, m.holder); break;
    case 'term_repaint': termFanout.repaint(m.term, m.viewer); break;
    case 'term_resize': termFanout.resize(m.term, m.cols, m.rows); break;
    case 'term_end': termFanout.end(m.term); break;
    case 'fanout_stats':
      post({ t: 'fanout_stats', counters: { ...fanout.counters }, cpuMs: threadCpuMs() });
      break;
    case 'cdp_send': case 'cdp_close': cdp.fromMain(m); break;
    case 'stop': stopRelay(); break;
  }
});

/**
 * How long viewers have to answer the stop's close frame before every socket still open is closed
 * outright, ms: a viewer that answers goes at once; one that does not, and an idle keep-alive HTTP
 * connection (uWS would hold it for its own 10 s idle timeout), never keeps the thread alive.
 */
const STOP_DRAIN_MS = 300;

/**
 * Ends every socket, in order (no new connection, viewers told 1001, then everything left closed)
 * and lets the thread end by itself: uWS's sockets are loop handles, and a thread terminated while
 * one is open aborts the whole process (uv_loop_close with open handles).
 */
function stopRelay(): void {
  stopped = true;
  if (listenSocket) us_listen_socket_close(listenSocket);
  listenSocket = null;
  for (const ws of [...sockets.values()]) ws.end(1001, 'the server is stopping');
  cdp.closeAll();
  sockets.clear();
  fanout.close();
  termFanout.close();
  termsUp?.close();
  void bridge?.then((b) => { linkKeysUp?.stop(); b.close(); }).catch(() => undefined);
  // Unref'd: when every socket went already, the loop empties and the thread ends without it.
  setTimeout(() => closeApp(app), STOP_DRAIN_MS).unref();
  post({ t: 'stopped' });
  port.close();
}

function listen(): void {
  if (stopped) return;
  listenExclusive(app, data.host, data.port, (s) => {
    if (!s) {
      post({ t: 'listen_failed', message: `port ${data.port} on ${data.host} is in use or cannot be bound; serve on another with --port N (or [server] port in forge.toml)` });
      return;
    }
    listenSocket = s;
    names = relayNames({ port: us_socket_local_port(s as never), bindHost: data.host, tls: !!data.tls, ...(data.publicUrl ? { publicUrl: data.publicUrl } : {}) });
    post({ t: 'listening', port: us_socket_local_port(s as never) });
  });
}
// With [cluster], the door opens once the bridge is up and every node's link key is in (a failed bridge said listen_failed).
if (bridge) bridge.then(listen, () => undefined);
else listen();

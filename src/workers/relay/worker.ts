/**
 * The relay worker: uWebSockets.js serving the web client, /metrics, /mcp (proxied to the
 * main thread) and the viewer WebSocket at /ws. It owns the sockets; the main thread owns
 * the rules and tells it what to send to whom.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { timingSafeEqual } from 'node:crypto';
import { App, us_listen_socket_close, us_socket_local_port, type WebSocket, type us_listen_socket } from './uws.js';
import { loadStatic } from './static.js';
import { proxyToMcp } from './proxy.js';
import { verifyLink } from './links.js';
import { serveDownload } from './downloads.js';
import type { FromRelay, RelayWorkerData, ToRelay } from './protocol.js';
import { decodeControl, encodeControl } from '../../shared/protocol.js';
import { SOCKET_INBOUND_MAX_BYTES } from '../../shared/limits.js';
import { Fanout, type FrameSource, type ViewerSink } from './fanout.js';
import { RingFrameSource } from './ring-source.js';
import { threadCpuMs } from './thread-cpu.js';

/** Seconds a viewer socket may sit silent before uWS closes it; the client pings well inside it. */
const VIEWER_IDLE_TIMEOUT_S = 60;
/**
 * uWS's own inbound ceiling, bytes. Past it uWS drops the connection with no close frame (1006), so
 * it sits above forge's SOCKET_INBOUND_MAX_BYTES, which the message handler enforces with a 1009.
 */
const UWS_PAYLOAD_CEILING_BYTES = 2 * SOCKET_INBOUND_MAX_BYTES;
/** uWS's own backpressure cap per socket, bytes: the fan-out skips a viewer long before this. */
const VIEWER_MAX_BACKPRESSURE_BYTES = 8 * 1024 * 1024;

interface Viewer { id: number; org: string; authed: boolean; query: string; closed: boolean; handoff?: string }

const data = workerData as RelayWorkerData;
const port = parentPort!;
const post = (m: FromRelay): void => port.postMessage(m);
const files = loadStatic(data.webDir);
const sockets = new Map<number, WebSocket<Viewer>>();
let nextViewerId = 1;
let listenSocket: us_listen_socket | null = null;
let mainGauges = '';
const fanout = new Fanout();
const frameSources = new Map<number, FrameSource>();
/** Counted here; the frame fan-out keeps its own (see `relayCounters`). `bytes_out`: control and terminal messages. */
const counters = { viewers_opened: 0, messages_in: 0, bytes_out: 0, bad_messages: 0 };

/** The relay's counters as /metrics names them: frames sent to one viewer each, frames a viewer was skipped for, and bytes. */
function relayCounters(): Record<string, number> {
  const f = fanout.counters;
  return {
    viewers_opened: counters.viewers_opened,
    messages_in: counters.messages_in,
    bad_messages: counters.bad_messages,
    frames_sent: f.viewerFrames,
    frames_skipped: f.skipped,
    patches_withheld: f.patchesWithheld,
    keyframes_asked: f.keyframesAsked,
    bytes_out: counters.bytes_out + f.bytesOut,
  };
}

/** What a token grants: the whole org (the server's token), one hand-off's page (a link), or nothing. */
function grant(given: string): { ok: false } | { ok: true; handoff?: string } {
  const a = Buffer.from(given);
  const b = Buffer.from(data.token);
  if (a.length === b.length && timingSafeEqual(a, b)) return { ok: true };
  const link = verifyLink(data.linkSecret, given);
  return link ? { ok: true, handoff: link.handoff } : { ok: false };
}

function sendError(ws: WebSocket<Viewer>, message: string, forKind?: string, id?: number): void {
  ws.send(encodeControl({ t: 'error', message, ...(forKind ? { for: forKind } : {}), ...(id !== undefined ? { id } : {}) }), true);
}

function authed(ws: WebSocket<Viewer>, handoff: string | undefined): void {
  const v = ws.getUserData();
  v.authed = true;
  v.handoff = handoff;
  sockets.set(v.id, ws);
  counters.viewers_opened++;
  post({ t: 'open', viewer: v.id, org: v.org, query: v.query, ...(handoff ? { handoff } : {}) });
}

const app = App();

app.ws<Viewer>('/ws', {
  maxPayloadLength: UWS_PAYLOAD_CEILING_BYTES,
  idleTimeout: VIEWER_IDLE_TIMEOUT_S,
  maxBackpressure: VIEWER_MAX_BACKPRESSURE_BYTES,
  sendPingsAutomatically: true,
  upgrade: (res, req, context) => {
    const query = req.getQuery() ?? '';
    const token = new URLSearchParams(query).get('token');
    // A wrong token is refused at the door; a missing one may still come as the first message.
    if (token !== null && !grant(token).ok) {
      res.writeStatus('401 Unauthorized').end('the viewer token is wrong');
      return;
    }
    res.upgrade<Viewer>(
      { id: nextViewerId++, org: data.org, authed: false, query, closed: false },
      req.getHeader('sec-websocket-key'),
      req.getHeader('sec-websocket-protocol'),
      req.getHeader('sec-websocket-extensions'),
      context,
    );
  },
  open: (ws) => {
    const v = ws.getUserData();
    const token = new URLSearchParams(v.query).get('token');
    if (token !== null) {
      const g = grant(token);
      if (g.ok) authed(ws, g.handoff);
    }
  },
  message: (ws, message, isBinary) => {
    const v = ws.getUserData();
    counters.messages_in++;
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
    if (!v.authed) {
      const g = msg.t === 'hello' && typeof msg.token === 'string' ? grant(msg.token) : { ok: false as const };
      if (g.ok) {
        authed(ws, g.handoff);
        return;
      }
      ws.end(4401, 'a viewer must send its token first');
      return;
    }
    if (msg.t === 'hello') return;
    // A viewer that dropped its picture (it fell behind) is resynced here, where the frames are.
    if (msg.t === 'keyframe') { fanout.resync(v.id); return; }
    post({ t: 'message', viewer: v.id, msg });
  },
  drain: (ws) => fanout.drained(ws.getUserData().id),
  close: (ws) => {
    const v = ws.getUserData();
    v.closed = true;
    fanout.unwatch(v.id);
    if (sockets.delete(v.id)) post({ t: 'close', viewer: v.id });
  },
});

app.any('/mcp', (res, req) => proxyToMcp(res, req, data.mcpPort));

app.get('/download', (res, req) => serveDownload(res, req, data.linkSecret, (path) => post({ t: 'download_fetched', path })));

app.get('/metrics', (res) => {
  const lines = [
    '# TYPE forge_relay_viewers gauge',
    `forge_relay_viewers ${sockets.size}`,
    ...Object.entries(relayCounters()).map(([k, v]) => `# TYPE forge_relay_${k}_total counter\nforge_relay_${k}_total ${v}`),
    mainGauges,
  ];
  res.cork(() => res.writeHeader('content-type', 'text/plain; version=0.0.4').end(lines.join('\n') + '\n'));
});

app.get('/*', (res, req) => {
  let url = req.getUrl();
  if (url === '/' || url === '/handoff' || url.startsWith('/handoff/')) url = '/index.html';
  const f = files.get(url);
  res.cork(() => {
    if (!f) { res.writeStatus('404 Not Found').end('not found'); return; }
    res.writeHeader('content-type', f.type).writeHeader('cache-control', 'no-cache').end(f.body);
  });
});

function sendTo(viewers: number[], bytes: Uint8Array, binary: boolean): void {
  for (const id of viewers) {
    const ws = sockets.get(id);
    if (!ws) continue;
    ws.send(bytes, binary);
    counters.bytes_out += bytes.byteLength;
  }
}

port.on('message', (m: ToRelay) => {
  switch (m.t) {
    case 'send': sendTo(m.viewers, m.data, true); break;
    case 'send_binary': sendTo(m.viewers, m.data, true); break;
    case 'close_viewer': sockets.get(m.viewer)?.end(m.code, m.reason); break;
    case 'gauges': mainGauges = m.text; break;
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
      if (!ws || m.tab === null) { fanout.unwatch(m.viewer); break; }
      const sink: ViewerSink = {
        // uWS answers 1 when the whole message went to the kernel (0: backlog, 2: dropped).
        send: (b) => ws.send(b, true) === 1,
        buffered: () => ws.getBufferedAmount(),
        cork: (fn) => { ws.cork(fn); },
      };
      if (source) fanout.route(m.tab, source);
      fanout.watch(m.viewer, sink, m.tab);
      break;
    }
    case 'fanout_stats':
      post({ t: 'fanout_stats', counters: { ...fanout.counters }, cpuMs: threadCpuMs() });
      break;
    case 'stop':
      if (listenSocket) us_listen_socket_close(listenSocket);
      listenSocket = null;
      for (const ws of sockets.values()) ws.end(1001, 'the server is stopping');
      fanout.close();
      sockets.clear();
      post({ t: 'stopped' });
      break;
  }
});

app.listen(data.host, data.port, (s) => {
  if (!s) {
    post({ t: 'listen_failed', message: `port ${data.port} on ${data.host} is in use or cannot be bound` });
    return;
  }
  listenSocket = s;
  post({ t: 'listening', port: us_socket_local_port(s as never) });
});

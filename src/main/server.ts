/**
 * `forge serve`: config, token, the relay worker, the MCP endpoint and the surfaces; prints the
 * viewer URL and the MCP endpoint and writes server.json. SIGINT/SIGTERM stop everything it
 * started within SHUTDOWN_TIMEOUT_MS.
 */
import { Worker } from 'node:worker_threads';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { loadConfig, profileKeyFor } from './config.js';
import { log } from './logging.js';
import { McpEndpoint } from './mcp/http.js';
import { ActivitySurface } from './activity/surface.js';
import { recordingServer } from './activity/recording.js';
import { ViewerHub } from './viewers.js';
import { claimStateDir, livingServer, profilesRoot, resolveStateDir, writeServerInfo, removeServerInfo } from './state.js';
import { ForgeError } from '../shared/errors.js';
import { SHUTDOWN_TIMEOUT_MS } from '../shared/limits.js';
import type { FromRelay, RelayWorkerData } from '../workers/relay/protocol.js';
import type { ServerContext, Surface } from './surface.js';
import { BrowserSurface } from './browser/surface.js';
import { TerminalSurface } from './terminal/surface.js';
import { sweepDeadFramebuffers } from './browser/host/host.js';
import { AGENT_KEY_PREFIX, PERSON_TOKEN_PREFIX, TokenBook } from '../workers/relay/tokens.js';
import { LinkKeys, linkKeyPair } from '../workers/relay/link-keys.js';
import { readTokens, tokensStamp } from './tokens.js';
import { baseUrlFor, checkTlsFiles } from './reach.js';
import { CdpDoor } from './browser/cdp-door.js';
import { allocatorGauges, pinAllocator, startArenaTrims } from './allocator.js';
import { isCdpFromRelay } from '../workers/relay/cdp-protocol.js';
import type { Seat } from './seat.js';
import { threadHeaps } from '../workers/thread-heaps.js';

const here = dirname(fileURLToPath(import.meta.url));
/** dist/src/main → the repository root. */
const root = join(here, '..', '..', '..');

/** How often the state dir's tokens file is checked for a change, ms: a revoked token's sockets close within this. */
const TOKENS_RELOAD_MS = 500;
/** Interval between gauge pushes to the relay's /metrics, ms: the operators' dashboard plots a point a second. */
const GAUGES_PERIOD_MS = 1000;

/** The server process's memory as /metrics shows it: resident, and the main thread's heap and buffers, so a soak tells a leak from a warm-up. */
function processGauges(): string {
  const m = process.memoryUsage();
  return [
    ['resident_bytes', m.rss], ['heap_used_bytes', m.heapUsed], ['heap_total_bytes', m.heapTotal], ['external_bytes', m.external], ['array_buffers_bytes', m.arrayBuffers],
    ...allocatorGauges(),
  ].map(([k, v]) => `# TYPE forge_process_${k} gauge\nforge_process_${k} ${v}`).join('\n');
}

export interface ServeOptions { stateDir?: string; port?: number; configFile?: string }


export async function startServer(opts: ServeOptions): Promise<void> {
  // Before any worker or socket allocates: every thread's arena follows the pinned threshold.
  pinAllocator();
  const stopTrims = startArenaTrims();
  const config = loadConfig(opts.configFile);
  if (config.server.tls) checkTlsFiles(config.source, config.server.tls);
  const stateDir = resolveStateDir(opts.stateDir);
  // Two servers on one state dir would fight over its profiles, terminals and server.json.
  const holder = claimStateDir(stateDir);
  if (holder) {
    const other = livingServer(stateDir);
    const where = other?.pid === holder.pid ? `pid ${holder.pid}, port ${other.port}` : `pid ${holder.pid}, still starting`;
    throw new ForgeError('already_serving', `another forge server already serves ${stateDir} (${where}); stop it first (Ctrl-C where it runs, or kill ${holder.pid}), or give this one a state directory of its own with --state DIR`);
  }
  sweepDeadFramebuffers();
  const port = opts.port ?? config.server.port;
  // This run's two keys: the agents' (MCP, /metrics) and the printed viewer link's (a person's, control of the org).
  const token = AGENT_KEY_PREFIX + randomBytes(24).toString('base64url');
  const viewerToken = PERSON_TOKEN_PREFIX + randomBytes(24).toString('base64url');
  // This run's link key pair: its links are signed here and checked with the public half, which a cluster's other nodes get too.
  const { privateKey: linkKey, publicKey } = linkKeyPair();
  const linkKeys = new LinkKeys(publicKey, config.cluster?.node);
  // Only a configured cluster loads the NATS client: a lone forge never needs it.
  const cluster = config.cluster ? await (await import('./cluster/node.js')).ClusterNode.start(config, linkKeys) : undefined;
  const book = new TokenBook({ agentKey: token, viewerToken, linkKeys, records: readTokens(stateDir) });
  const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;

  const surfaces: Surface[] = [];
  const activity = new ActivitySurface(stateDir);
  let baseUrl = '';
  const profileFor = (seat: Seat): string => {
    if (seat.org !== config.org.name) throw new ForgeError('auth', `seat ${seat.key} is not in org ${config.org.name}, the only org this server runs`);
    return profileKeyFor(config, seat.project);
  };
  const mcp = new McpEndpoint(book, {
    profileFor,
    registerTools: (server, sctx) => { const recorded = recordingServer(server, sctx, activity.log); for (const s of surfaces) s.registerTools(recorded, sctx); },
    sessionClosed: (sctx) => { for (const s of surfaces) s.sessionClosed?.(sctx); },
    ...(cluster ? { elsewhere: cluster.mcpElsewhere() } : {}),
  }, version);
  const mcpPort = await mcp.listen();
  cluster?.serveMcp(mcpPort, token);

  const relayHeap = threadHeaps.claim('relay');
  const relay = new Worker(join(here, '..', 'workers', 'relay', 'worker.js'), {
    workerData: { heap: relayHeap, host: config.server.host, port, agentKey: token, viewerToken, tokens: readTokens(stateDir), org: config.org.name, webDir: join(root, 'dist', 'web'), mcpPort, linkKey: linkKeys.ownPublished, profilesRoot: profilesRoot(stateDir),
      ...(config.server.tls ? { tls: { certFile: config.server.tls.cert.path, keyFile: config.server.tls.key.path } } : {}),
      ...(config.server.publicUrl ? { publicUrl: config.server.publicUrl } : {}),
      ...(config.cluster ? { cluster: config.cluster } : {}) } satisfies RelayWorkerData,
  });
  const hub = new ViewerHub(relay, config.client.theme);
  cluster?.attach(hub);
  const ctx: ServerContext = { config, stateDir, token, hub, linkKey, baseUrl: () => baseUrl, ...(cluster ? { cluster } : {}) };
  const browser = new BrowserSurface(ctx);
  surfaces.push(browser);
  const cdp = new CdpDoor({ browser, post: (m) => hub.post(m), profileFor });
  surfaces.push(new TerminalSurface(ctx));
  surfaces.push(activity);
  for (const s of surfaces) s.attachViewers(hub);

  const listening = await new Promise<number>((resolve, reject) => {
    relay.on('message', (m: FromRelay) => {
      if (m.t === 'listening') resolve(m.port);
      else if (m.t === 'listen_failed') reject(new Error(m.message));
      else if (m.t === 'fault') log.error({ err: { message: m.message, stack: m.stack } }, 'the relay caught an exception no handler did; it goes on serving');
      else if (isCdpFromRelay(m)) cdp.dispatch(m);
      else hub.dispatch(m);
    });
    relay.once('error', reject);
  });

  const base = baseUrlFor(config.server, listening);
  baseUrl = base;
  // The stdio bridge runs on this machine: it talks to the loopback endpoint, whatever name or certificate the public one has.
  const info = { pid: process.pid, port: listening, viewer_url: `${base}/?token=${viewerToken}`, mcp_url: `${base}/mcp`, local_mcp_url: `http://127.0.0.1:${mcpPort}/mcp`, token, viewer_token: viewerToken };
  writeServerInfo(stateDir, info);
  const gauges = setInterval(() => {
    hub.post({ t: 'gauges', text: [processGauges(), threadHeaps.gauges(), mcp.gauges(), ...surfaces.map((s) => s.gauges?.() ?? '')].filter(Boolean).join('\n') });
  }, GAUGES_PERIOD_MS);
  gauges.unref();
  // `forge token new` / `revoke` write the state dir's tokens: the door and MCP follow within a moment.
  let tokensSeen = tokensStamp(stateDir);
  const tokenWatch = setInterval(() => {
    const now = tokensStamp(stateDir);
    if (now === tokensSeen) return;
    tokensSeen = now;
    try {
      const records = readTokens(stateDir);
      book.replace(records);
      hub.post({ t: 'tokens', records });
      mcp.sweepGrants();
    } catch (e) {
      log.error({ err: e }, 'the tokens file could not be read; the tokens in force are unchanged');
    }
  }, TOKENS_RELOAD_MS);
  tokenWatch.unref();

  log.info({ port: listening, stateDir, config: config.source, org: config.org.name }, 'forge is serving');
  process.stdout.write(`forge is serving ${config.org.name} (config: ${config.source})\n`);
  process.stdout.write(`  viewer: ${info.viewer_url}\n`);
  process.stdout.write(`  mcp:    ${info.mcp_url}  (Authorization: Bearer <token in ${join(stateDir, 'server.json')}>)\n`);

  let stopping = false;
  const stop = async (signal: string, code = 0): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'forge is stopping');
    const hard = setTimeout(() => {
      log.error({ ms: SHUTDOWN_TIMEOUT_MS }, 'forge did not stop in time; exiting anyway');
      removeServerInfo(stateDir, process.pid);
      process.exit(1);
    }, SHUTDOWN_TIMEOUT_MS);
    hard.unref();
    clearInterval(gauges);
    clearInterval(tokenWatch);
    stopTrims();
    // In order: the surfaces (hosts, shells: their viewers are told why), the agents' sessions, then the sockets.
    await Promise.allSettled(surfaces.map((s) => s.stop()));
    await mcp.close().catch(() => undefined);
    await cluster?.close().catch(() => undefined);
    await stopRelay(relay);
    removeServerInfo(stateDir, process.pid);
    log.info({ signal }, 'forge stopped');
    process.exit(code);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  // One call's promise that failed with nobody awaiting it is that call's fault, never every
  // viewer's and agent's: it is logged as the error it is, and forge goes on serving.
  process.on('unhandledRejection', (e: unknown) => {
    log.error({ err: e instanceof Error ? { message: e.message, stack: e.stack } : String(e) }, 'a failure nobody was waiting for (a defect: report it); forge goes on');
  });
  // An exception nothing caught leaves main in a state nobody knows: forge stops as it does on a
  // signal (hosts, shells and sockets closed in order, the state file removed), never with its
  // relay thread aborting the process.
  process.on('uncaughtException', (e: Error) => {
    log.fatal({ err: { message: e?.message, stack: e?.stack } }, 'an exception nothing caught; forge is stopping');
    void stop('uncaughtException', 1);
  });
}

/**
 * How long the relay thread has to close its sockets and end by itself, ms, before it is
 * terminated: its own drain (see the relay's STOP_DRAIN_MS) fits well inside.
 */
const RELAY_EXIT_DEADLINE_MS = 1500;

/** Asks the relay to close every socket and end; terminates it only when it has not ended by the deadline. */
async function stopRelay(relay: Worker): Promise<void> {
  const exited = new Promise<boolean>((r) => relay.once('exit', () => r(true)));
  relay.postMessage({ t: 'stop' });
  const ended = await Promise.race([exited, new Promise<boolean>((r) => setTimeout(() => r(false), RELAY_EXIT_DEADLINE_MS).unref())]);
  if (ended) return;
  log.warn({ ms: RELAY_EXIT_DEADLINE_MS }, 'the relay did not end by itself; terminating it');
  await relay.terminate();
}

/**
 * forge.toml: optional. Without it forge runs with the embedded default (org `default`,
 * profile `default`). A malformed file or an unknown key stops the server before anything
 * starts, with the file, line and key named.
 */
import { readFileSync, existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse, TomlError } from 'smol-toml';
import { ForgeError } from '../shared/errors.js';
import { isLoopbackHost } from '../workers/relay/origin.js';
import { NODE_NAME_RE } from './cluster/protocol.js';
import {
  BROWSER_IDLE_MINUTES_DEFAULT,
  HIDDEN_AGENT_TABS_DEFAULT,
  HIDDEN_PERSON_TABS_DEFAULT,
  TERMINAL_IDLE_MINUTES_DEFAULT,
  RECONNECT_GRACE_S_DEFAULT,
} from '../shared/limits.js';
import { AGENT_CAPS, isAgentCap, type AgentCap } from './browser/tools/caps.js';

/** The server's default port: what `./forge serve` binds without --port. */
export const DEFAULT_PORT = 7300;
export const DEFAULT_HOST = '127.0.0.1';

export interface ForgeConfig {
  /** Where the config came from: a file path, or "the embedded default". */
  source: string;
  org: { name: string; browserProfile: string };
  /** Project overrides of the org's profile, by project name. */
  projects: Record<string, { browserProfile?: string }>;
  /**
   * `hiddenAgentTabs`, `hiddenPersonTabs`: how many tabs no viewer shows stay loaded per profile, by who used them last.
   * `spareWindow`: each host keeps one blank window ready, so an open or a rebuilt tab skips making one (one renderer's memory).
   */
  browser: { idleMinutes: number; hiddenAgentTabs: number; hiddenPersonTabs: number; spareWindow: boolean };
  /** `allowFileUrls`: whether agents may open file: URLs in the shared browser (off: the server's disk is not the agents'). */
  /** `snapshot`: "diff" answers an action with what changed in the page since the seat's last snapshot; "full" with the whole snapshot every time. */
  /** `reconnectGraceS`: how long a seat outlives its last session, seconds (0: released at once). */
  /** `caps`: the opt-in tool groups (Playwright MCP's --caps) this server offers agents; none by default. */
  /** `allowRunCode`: whether browser_run_code_unsafe is offered (it runs the agent's code in the server). */
  agent: { allowFileUrls: boolean; snapshot: 'diff' | 'full'; reconnectGraceS: number; caps: AgentCap[]; allowRunCode: boolean };
  terminal: { idleMinutes: number; shell?: string };
  /** `theme`: the clients' palette — "system" follows each person's light or dark preference; "dark" or "light" pins that one for every client. */
  client: { theme: 'system' | 'dark' | 'light' };
  server: ServerConfig;
  /** `[cluster]`: this process is one node of several joined over NATS; absent, forge is one process and never touches NATS. */
  cluster?: ClusterConfig;
}

/** What a node does: host browsers, host terminals, serve viewer sockets, serve MCP sessions. */
export const CLUSTER_ROLES = ['browser', 'terminal', 'viewer', 'mcp'] as const;
export type ClusterRole = typeof CLUSTER_ROLES[number];

export interface ClusterConfig {
  /** `nats`: the NATS server's URL, nats://host:port (several, comma-separated, for a NATS cluster). */
  nats: string[];
  /** `node`: this node's name, unique among the nodes: leases and subjects carry it. */
  node: string;
  /** `roles`: what this node does; a node without "browser" never takes a profile's lease, so never starts a host. Default: all four. */
  roles: ClusterRole[];
  /** `token`: the NATS server's auth token (its `authorization { token }`); every node shows it. */
  token?: string;
  /** `user` and `password`: this node's own NATS user (its `authorization { users }`), which NATS can hold to this node's subjects (see cluster/protocol.ts natsPermissions). */
  user?: string;
  password?: string;
}

/** A file forge.toml names, resolved against the file's directory, with the line that names it. */
export interface ConfigPath { path: string; line: number }

export interface ServerConfig {
  host: string;
  port: number;
  /** `tls_cert` and `tls_key`: with both, the relay serves HTTPS and WSS. */
  tls?: { cert: ConfigPath; key: ConfigPath };
  /** `public_url`: the origin people and agents reach forge by (its own TLS name, or a proxy's); no trailing slash. */
  publicUrl?: string;
  /** `insecure_remote`: serve plain HTTP beyond loopback, for a TLS proxy on another host. */
  insecureRemote: boolean;
}

export function defaultConfig(): ForgeConfig {
  return {
    source: 'the embedded default',
    org: { name: 'default', browserProfile: 'default' },
    projects: {},
    browser: { idleMinutes: BROWSER_IDLE_MINUTES_DEFAULT, hiddenAgentTabs: HIDDEN_AGENT_TABS_DEFAULT, hiddenPersonTabs: HIDDEN_PERSON_TABS_DEFAULT, spareWindow: true },
    agent: { allowFileUrls: false, snapshot: 'diff', reconnectGraceS: RECONNECT_GRACE_S_DEFAULT, caps: [], allowRunCode: false },
    terminal: { idleMinutes: TERMINAL_IDLE_MINUTES_DEFAULT },
    client: { theme: 'system' },
    server: { host: DEFAULT_HOST, port: DEFAULT_PORT, insecureRemote: false },
  };
}

type Shape = { [key: string]: 'string' | 'number' | 'boolean' | 'strings' | Shape | 'projects' };

/** Every key forge.toml may carry. `[project]` is the project's own override; `[projects.NAME]` names several. */
const SCHEMA: Shape = {
  org: { name: 'string', browser_profile: 'string' },
  project: { name: 'string', browser_profile: 'string' },
  projects: 'projects',
  browser: { idle_minutes: 'number', hidden_agent_tabs: 'number', hidden_person_tabs: 'number', spare_window: 'boolean' },
  agent: { allow_file_urls: 'boolean', snapshot: 'string', reconnect_grace_s: 'number', caps: 'strings', allow_run_code: 'boolean' },
  terminal: { idle_minutes: 'number', shell: 'string' },
  client: { theme: 'string' },
  server: { host: 'string', port: 'number', tls_cert: 'string', tls_key: 'string', public_url: 'string', insecure_remote: 'boolean' },
  cluster: { nats: 'string', node: 'string', roles: 'strings', token: 'string', user: 'string', password: 'string' },
};

/** A profile or org name: one path segment, so `<org>/<name>` is a safe directory. */
const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function loadConfig(file: string | undefined): ForgeConfig {
  if (file === undefined) {
    if (!existsSync('forge.toml')) return defaultConfig();
    file = 'forge.toml';
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ForgeError('config', `${file}: cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  return parseConfig(text, file);
}

export function parseConfig(text: string, file: string): ForgeConfig {
  let doc: Record<string, unknown>;
  try {
    doc = parse(text) as Record<string, unknown>;
  } catch (e) {
    if (e instanceof TomlError) {
      const first = e.message.split('\n')[0];
      throw new ForgeError('config', `${file}:${e.line}: ${first}`);
    }
    throw new ForgeError('config', `${file}: ${String(e)}`);
  }
  check(doc, SCHEMA, [], text, file);
  const cfg = defaultConfig();
  cfg.source = file;
  const org = doc.org as Record<string, unknown> | undefined;
  if (org?.name !== undefined) cfg.org.name = name(org.name as string, 'org.name', text, file);
  if (org?.browser_profile !== undefined) cfg.org.browserProfile = name(org.browser_profile as string, 'org.browser_profile', text, file);
  const project = doc.project as Record<string, unknown> | undefined;
  if (project?.browser_profile !== undefined) {
    const profile = name(project.browser_profile as string, 'project.browser_profile', text, file);
    // A bare [project] without a name is this directory's project: it overrides for every seat.
    cfg.projects[(project.name as string | undefined) ?? '*'] = { browserProfile: profile };
  }
  const projects = doc.projects as Record<string, Record<string, unknown>> | undefined;
  for (const [p, v] of Object.entries(projects ?? {})) {
    if (v.browser_profile !== undefined) cfg.projects[p] = { browserProfile: name(v.browser_profile as string, `projects.${p}.browser_profile`, text, file) };
  }
  const browser = doc.browser as { idle_minutes?: number; hidden_agent_tabs?: number; hidden_person_tabs?: number; spare_window?: boolean } | undefined;
  const agent = doc.agent as { allow_file_urls?: boolean; snapshot?: string; reconnect_grace_s?: number; caps?: string[]; allow_run_code?: boolean } | undefined;
  if (browser?.idle_minutes !== undefined) cfg.browser.idleMinutes = positive(browser.idle_minutes, 'browser.idle_minutes', text, file);
  if (browser?.hidden_agent_tabs !== undefined) cfg.browser.hiddenAgentTabs = count(browser.hidden_agent_tabs, 'browser.hidden_agent_tabs', text, file);
  if (browser?.hidden_person_tabs !== undefined) cfg.browser.hiddenPersonTabs = count(browser.hidden_person_tabs, 'browser.hidden_person_tabs', text, file);
  if (browser?.spare_window !== undefined) cfg.browser.spareWindow = browser.spare_window;
  if (agent?.allow_file_urls !== undefined) cfg.agent.allowFileUrls = agent.allow_file_urls;
  if (agent?.snapshot !== undefined) {
    if (agent.snapshot !== 'diff' && agent.snapshot !== 'full') throw keyError(file, text, 'agent.snapshot', 'must be "diff" or "full"');
    cfg.agent.snapshot = agent.snapshot;
  }
  if (agent?.reconnect_grace_s !== undefined) {
    if (!(agent.reconnect_grace_s >= 0)) throw keyError(file, text, 'agent.reconnect_grace_s', 'must be a number of seconds, 0 or more');
    cfg.agent.reconnectGraceS = agent.reconnect_grace_s;
  }
  for (const cap of agent?.caps ?? []) {
    if (!isAgentCap(cap)) throw keyError(file, text, 'agent.caps', `names "${cap.slice(0, 40)}", not a tool group (${AGENT_CAPS.join(', ')})`);
    if (!cfg.agent.caps.includes(cap)) cfg.agent.caps.push(cap);
  }
  if (agent?.allow_run_code !== undefined) cfg.agent.allowRunCode = agent.allow_run_code;
  const terminal = doc.terminal as Record<string, unknown> | undefined;
  if (terminal?.idle_minutes !== undefined) cfg.terminal.idleMinutes = positive(terminal.idle_minutes as number, 'terminal.idle_minutes', text, file);
  if (terminal?.shell !== undefined) cfg.terminal.shell = terminal.shell as string;
  const client = doc.client as { theme?: string } | undefined;
  if (client?.theme !== undefined) {
    if (client.theme !== 'system' && client.theme !== 'dark' && client.theme !== 'light') throw keyError(file, text, 'client.theme', 'must be "system", "dark" or "light"');
    cfg.client.theme = client.theme;
  }
  const server = doc.server as Record<string, unknown> | undefined;
  if (server?.host !== undefined) cfg.server.host = server.host as string;
  if (server?.port !== undefined) {
    const port = server.port as number;
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw keyError(file, text, 'server.port', 'must be a port number (0-65535)');
    cfg.server.port = port;
  }
  serverExposure(cfg.server, server ?? {}, text, file);
  const cluster = doc.cluster as Record<string, unknown> | undefined;
  if (cluster) cfg.cluster = clusterConfig(cluster, text, file);
  return cfg;
}

/** `[cluster]`: the NATS URL and this node's name are required; roles default to all four. */
function clusterConfig(c: Record<string, unknown>, text: string, file: string): ClusterConfig {
  if (c.nats === undefined) throw keyError(file, text, 'cluster', 'needs nats = "nats://host:port", the NATS server the nodes join over');
  if (c.node === undefined) throw keyError(file, text, 'cluster', 'needs node = "name", this node\'s name among the others');
  const nats = (c.nats as string).split(',').map((u) => u.trim());
  for (const u of nats) {
    if (!/^(nats|tls):\/\/[^/\s]+$/.test(u)) throw keyError(file, text, 'cluster.nats', `"${u.slice(0, 100)}" is not a NATS URL (like nats://127.0.0.1:4222)`);
  }
  const node = c.node as string;
  if (!NODE_NAME_RE.test(node)) throw keyError(file, text, 'cluster.node', `"${node.slice(0, 64)}" is not a valid node name (letters, digits, _ -)`);
  let roles: ClusterRole[] = [...CLUSTER_ROLES];
  if (c.roles !== undefined) {
    roles = [];
    for (const r of c.roles as string[]) {
      if (!(CLUSTER_ROLES as readonly string[]).includes(r)) throw keyError(file, text, 'cluster.roles', `names "${String(r).slice(0, 40)}"; the roles are ${CLUSTER_ROLES.join(', ')}`);
      if (!roles.includes(r as ClusterRole)) roles.push(r as ClusterRole);
    }
  }
  if ((c.user === undefined) !== (c.password === undefined)) throw keyError(file, text, 'cluster', 'needs both user and password (this node\'s NATS user), or neither');
  if (c.user !== undefined && c.token !== undefined) throw keyError(file, text, 'cluster', 'names a token and a user: NATS takes one of them');
  return {
    nats, node, roles,
    ...(c.token !== undefined ? { token: c.token as string } : {}),
    ...(c.user !== undefined ? { user: c.user as string, password: c.password as string } : {}),
  };
}

/**
 * The [server] keys that say how forge is reached: TLS, the public URL, and the refusal to serve
 * plain HTTP beyond loopback unless told a TLS proxy stands in front.
 */
function serverExposure(cfg: ServerConfig, server: Record<string, unknown>, text: string, file: string): void {
  const cert = server.tls_cert as string | undefined;
  const key = server.tls_key as string | undefined;
  if ((cert === undefined) !== (key === undefined)) {
    const missing = cert === undefined ? 'server.tls_cert' : 'server.tls_key';
    throw keyError(file, text, cert === undefined ? 'server.tls_key' : 'server.tls_cert', `needs ${missing} beside it (a certificate and its key, both PEM files)`);
  }
  if (cert !== undefined && key !== undefined) {
    // Relative paths are the config file's neighbours, wherever forge was started.
    const at = (p: string, k: string): ConfigPath => ({ path: resolve(dirname(file), p), line: lineOf(text, k) });
    cfg.tls = { cert: at(cert, 'server.tls_cert'), key: at(key, 'server.tls_key') };
  }
  if (server.public_url !== undefined) cfg.publicUrl = publicUrl(server.public_url as string, text, file);
  if (server.insecure_remote !== undefined) cfg.insecureRemote = server.insecure_remote as boolean;
  if (!isLoopbackHost(cfg.host) && !cfg.tls && !cfg.insecureRemote) {
    throw new ForgeError('config', `${file}:${lineOf(text, 'server.host')}: forge will not serve plain HTTP on ${cfg.host} without TLS: set [server] tls_cert and tls_key, or put it behind a TLS proxy and set [server] insecure_remote = true`);
  }
}

/** `public_url`: an http(s) origin, a name and maybe a port, no path (the client's socket is at /ws of its origin). */
function publicUrl(v: string, text: string, file: string): string {
  let u: URL;
  try { u = new URL(v); } catch { throw keyError(file, text, 'server.public_url', `"${v.slice(0, 100)}" is not a URL (like https://forge.example.com)`); }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw keyError(file, text, 'server.public_url', 'must be an https:// (or http://) URL');
  if ((u.pathname !== '/' && u.pathname !== '') || u.search || u.hash || u.username || u.password) {
    throw keyError(file, text, 'server.public_url', `must be an origin only, like ${u.origin}: forge serves at the root of its name`);
  }
  return u.origin;
}

/** Every profile key the org has: its own and each project's override (no other profile can be used). */
export function orgProfileKeys(cfg: ForgeConfig): string[] {
  const names = [cfg.org.browserProfile, ...Object.values(cfg.projects).map((p) => p.browserProfile).filter((n): n is string => n !== undefined)];
  return [...new Set(names)].map((n) => `${cfg.org.name}/${n}`);
}

/** The profile key `<org>/<name>` for a seat's project: the project's override, else the org's. */
export function profileKeyFor(cfg: ForgeConfig, project: string): string {
  const override = cfg.projects[project]?.browserProfile ?? cfg.projects['*']?.browserProfile;
  return `${cfg.org.name}/${override ?? cfg.org.browserProfile}`;
}

function check(value: Record<string, unknown>, shape: Shape, path: string[], text: string, file: string): void {
  for (const [key, v] of Object.entries(value)) {
    const want = shape[key];
    const keyPath = [...path, key].join('.');
    if (want === undefined) throw keyError(file, text, keyPath, 'is not a forge.toml key');
    if (want === 'projects') {
      if (typeof v !== 'object' || v === null) throw keyError(file, text, keyPath, 'must be a table of projects');
      for (const [p, pv] of Object.entries(v as Record<string, unknown>)) {
        if (typeof pv !== 'object' || pv === null) throw keyError(file, text, `${keyPath}.${p}`, 'must be a table');
        check(pv as Record<string, unknown>, { browser_profile: 'string' }, [...path, key, p], text, file);
      }
    } else if (want === 'strings') {
      if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw keyError(file, text, keyPath, 'must be a list of strings');
    } else if (typeof want === 'object') {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) throw keyError(file, text, keyPath, 'must be a table');
      check(v as Record<string, unknown>, want, [...path, key], text, file);
    } else if (typeof v !== want) {
      throw keyError(file, text, keyPath, `must be a ${want}`);
    }
  }
}

function name(v: string, key: string, text: string, file: string): string {
  if (!NAME_RE.test(v)) throw keyError(file, text, key, `"${v}" is not a valid name (letters, digits, . _ -)`);
  return v;
}

function positive(v: number, key: string, text: string, file: string): number {
  if (!(v > 0)) throw keyError(file, text, key, 'must be a positive number');
  return v;
}

/** A count of tabs: a whole number, at least 1 (a profile keeps one loaded window, or Chromium quits). */
function count(v: number, key: string, text: string, file: string): number {
  if (!Number.isInteger(v) || v < 1) throw keyError(file, text, key, 'must be a whole number, at least 1');
  return v;
}

function keyError(file: string, text: string, keyPath: string, what: string): ForgeError {
  return new ForgeError('config', `${file}:${lineOf(text, keyPath)}: key ${keyPath} ${what}`);
}

/** The line a dotted key is written on: tracks [table] headers and finds `key =`. */
export function lineOf(text: string, keyPath: string): number {
  const parts = keyPath.split('.');
  const leaf = parts[parts.length - 1];
  const table = parts.slice(0, -1).join('.');
  const lines = text.split('\n');
  let current = '';
  let tableLine = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    const header = /^\[\s*([^\]]+?)\s*\]/.exec(line);
    if (header) {
      current = header[1].replace(/\s+/g, '');
      if (current === keyPath) return i + 1;
      if (current === table) tableLine = i + 1;
      continue;
    }
    const m = /^([A-Za-z0-9_."-]+)\s*=/.exec(line);
    if (!m) continue;
    const full = [current, m[1].replace(/"/g, '')].filter(Boolean).join('.');
    if (full === keyPath || (current === table && m[1] === leaf)) return i + 1;
  }
  return tableLine || 1;
}

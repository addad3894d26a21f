/**
 * The names forge answers to, and the rule every request meets before its route runs: its `Host`
 * must be one of them (a page at evil.example whose name was made to resolve to 127.0.0.1 sends
 * `Host: evil.example` and is refused, which defeats DNS rebinding), and on the routes a page could
 * drive with a stolen credential (the viewer socket, MCP) a present `Origin` must be one of the
 * served origins, or the request's own loopback authority. An absent `Origin` is a program (an MCP
 * SDK, curl), not a page elsewhere.
 * Pure: the relay reads the headers and writes the answer.
 */

/**
 * The loopback names, always served, on any port: only a forwarder of this machine's own (ssh -L,
 * a container's port map) makes a browser send one with another port, and a rebound name is never one.
 */
const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** A bind host that listens on every address: it names no one host. */
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]', '']);

/** Whether a bind host is loopback only: 127.0.0.0/8, ::1 or localhost. */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  const m = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  return !!m && m.slice(1).every((p) => Number(p) <= 255);
}

export function isWildcardHost(host: string): boolean {
  return WILDCARD_HOSTS.has(host.trim().toLowerCase());
}

/** A host as it is written in a URL's authority: an IPv6 address in brackets. */
export function urlHost(host: string): string {
  const h = host.trim().toLowerCase();
  return h.includes(':') && !h.startsWith('[') ? `[${h}]` : h;
}

export interface ServedNamesInput {
  /** The port the relay listens on. */
  port: number;
  /** `[server] host`, as configured. */
  bindHost: string;
  /** Whether the relay itself serves TLS (its own names' origins are then https). */
  tls: boolean;
  /** `[server] public_url`, when set: its host and origin are served too. */
  publicUrl?: string;
  /** The machine's own addresses, served when the bind host is a wildcard (a phone on the LAN opens one). */
  interfaceAddresses?: string[];
}

export interface ServedNames {
  /** `Host` header values answered, lower case (`name:port`, or a public name on its scheme's default port without it). */
  hosts: Set<string>;
  /** Names answered on any port: the loopback names. */
  anyPort: Set<string>;
  /** `Origin` header values accepted on /ws and /mcp, beside a page of the request's own loopback authority. */
  origins: Set<string>;
  /** The scheme forge itself serves: a page of the request's own loopback authority has it. */
  scheme: 'http' | 'https';
}

export function servedNames(input: ServedNamesInput): ServedNames {
  const scheme = input.tls ? 'https' : 'http';
  const hosts = new Set<string>();
  const origins = new Set<string>();
  const own = (name: string): void => {
    const authority = `${urlHost(name)}:${input.port}`;
    hosts.add(authority);
    origins.add(`${scheme}://${authority}`);
  };
  for (const n of LOOPBACK_NAMES) own(n);
  const anyPort = new Set(LOOPBACK_NAMES);
  if (isWildcardHost(input.bindHost)) for (const a of input.interfaceAddresses ?? []) own(a);
  else own(input.bindHost);
  if (input.publicUrl) {
    const u = new URL(input.publicUrl);
    const defaultPort = u.protocol === 'https:' ? '443' : '80';
    // URL drops a default port: a proxy may still send it.
    hosts.add(u.host.toLowerCase());
    if (!u.port) hosts.add(`${u.host.toLowerCase()}:${defaultPort}`);
    origins.add(u.origin.toLowerCase());
  }
  return { hosts, anyPort, origins, scheme };
}

/** The name part of a Host header: `[::1]:7300` → `[::1]`, `localhost` → `localhost`. */
function hostName(host: string): string {
  const m = /^(\[[^\]]*\]|[^:]*)(?::\d+)?$/.exec(host);
  return m ? m[1]! : host;
}

function served(names: ServedNames, host: string): boolean {
  return names.hosts.has(host) || names.anyPort.has(hostName(host));
}

export type RequestVerdict =
  | { ok: true }
  | { ok: false; status: '421 Misdirected Request' | '403 Forbidden'; words: string };

/** Words are capped where they echo a header: a refusal never mirrors a long header back. */
const ECHO_MAX_CHARS = 100;

/**
 * The rule for one request. `host` and `origin` are the headers as sent ('' when absent, as uWS
 * reads them); `checkOrigin` is set on /ws and /mcp.
 */
export function judgeRequest(names: ServedNames, req: { host: string; origin: string; checkOrigin: boolean }): RequestVerdict {
  const host = req.host.trim().toLowerCase();
  if (!served(names, host)) {
    const said = host ? `the name ${JSON.stringify(host.slice(0, ECHO_MAX_CHARS))}` : 'no Host header';
    return { ok: false, status: '421 Misdirected Request', words: `this forge does not serve ${said}; open it by the link it printed, or set [server] public_url to the name it is reached by\n` };
  }
  const origin = req.origin.trim().toLowerCase();
  // A page of the very loopback authority the request is addressed to is forge's own, through whatever forwarded port.
  const ownPage = names.anyPort.has(hostName(host)) && origin === `${names.scheme}://${host}`;
  if (req.checkOrigin && origin !== '' && !ownPage && !names.origins.has(origin)) {
    return { ok: false, status: '403 Forbidden', words: `a page at ${JSON.stringify(req.origin.slice(0, ECHO_MAX_CHARS))} may not open this forge's viewer socket or MCP; only forge's own pages may\n` };
  }
  return { ok: true };
}

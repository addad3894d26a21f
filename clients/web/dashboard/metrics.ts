/**
 * The Prometheus text of /metrics read into samples, and two scrapes turned into the figures an
 * operator watches: per profile its frames a second, encode ms and KB per frame and its host's
 * memory and CPU; the relay's sends and skips; the terminals' MB a second; the server's memory.
 * No DOM here: the dashboard draws what `figures` answers.
 */

/** One scrape: each series by its name with labels, as `/metrics` writes it (`name{a="b"}`). */
export type Scrape = { at: number; values: Map<string, number> };

export function parseMetrics(text: string, at: number): Scrape {
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const sp = line.lastIndexOf(' ');
    const v = Number(line.slice(sp + 1));
    if (Number.isFinite(v)) values.set(line.slice(0, sp), v);
  }
  return { at, values };
}

/** The label `profile` of every series named `name`. */
function profiles(s: Scrape, name: string): string[] {
  const out = new Set<string>();
  for (const k of s.values.keys()) {
    if (!k.startsWith(`${name}{`)) continue;
    const m = /profile="([^"]*)"/.exec(k);
    if (m) out.add(m[1]!);
  }
  return [...out];
}

/** A series' value summed over every label set with `profile` (all encoders of the profile). */
function ofProfile(s: Scrape, name: string, profile: string): number {
  let n = 0;
  for (const [k, v] of s.values) if (k.startsWith(`${name}{`) && k.includes(`profile="${profile}"`)) n += v;
  return n;
}

export interface ProfileFigures { profile: string; fps: number; encodeMsPerFrame: number; kbPerFrame: number; hostRssMb: number; hostCpuPct: number }
export interface Figures {
  at: number;
  profiles: ProfileFigures[];
  viewers: number;
  framesSentPerS: number;
  framesSkippedPerS: number;
  relayMbPerS: number;
  terminals: number;
  terminalMbPerS: number;
  serverRssMb: number;
  serverHeapMb: number;
}

const MB = 1024 * 1024;

/** What changed between two scrapes, per second (a counter that went back — a restart — counts from zero). */
export function figures(prev: Scrape, now: Scrape): Figures {
  const dt = Math.max(0.001, (now.at - prev.at) / 1000);
  const d = (a: number, b: number): number => (b >= a ? b - a : b);
  const rate = (name: string): number => d(prev.values.get(name) ?? 0, now.values.get(name) ?? 0) / dt;
  const list = profiles(now, 'forge_browser_tabs').map((profile) => {
    const frames = d(ofProfile(prev, 'forge_encode_frames_total', profile), ofProfile(now, 'forge_encode_frames_total', profile));
    const secs = d(ofProfile(prev, 'forge_encode_seconds_total', profile), ofProfile(now, 'forge_encode_seconds_total', profile));
    const bytes = d(ofProfile(prev, 'forge_encode_bytes_total', profile), ofProfile(now, 'forge_encode_bytes_total', profile));
    const cpu = d(ofProfile(prev, 'forge_host_cpu_seconds_total', profile), ofProfile(now, 'forge_host_cpu_seconds_total', profile));
    return {
      profile,
      fps: frames / dt,
      encodeMsPerFrame: frames ? (secs * 1000) / frames : 0,
      kbPerFrame: frames ? bytes / 1024 / frames : 0,
      hostRssMb: ofProfile(now, 'forge_host_resident_bytes', profile) / MB,
      hostCpuPct: (cpu / dt) * 100,
    };
  });
  return {
    at: now.at,
    profiles: list,
    viewers: now.values.get('forge_relay_viewers') ?? 0,
    framesSentPerS: rate('forge_relay_frames_sent_total'),
    framesSkippedPerS: rate('forge_relay_frames_skipped_total'),
    relayMbPerS: rate('forge_relay_bytes_out_total') / MB,
    terminals: now.values.get('forge_terminals') ?? 0,
    terminalMbPerS: rate('forge_terminal_bytes_out_total') / MB,
    serverRssMb: (now.values.get('forge_process_resident_bytes') ?? 0) / MB,
    serverHeapMb: (now.values.get('forge_process_heap_used_bytes') ?? 0) / MB,
  };
}

/**
 * The Prometheus text of /metrics read into samples, and two scrapes turned into the figures an
 * operator watches: per profile its frames a second, encode ms and KB per frame and its host's
 * memory and CPU; per watched tab its fps, encode ms and KB per frame, viewers and frames skipped
 * for slow viewers; per watched terminal its MB a second and viewers; the relay's sends and
 * skips; the terminals' MB a second; the server's memory.
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

/** Every series named `name`, with its labels. */
function labelled(s: Scrape, name: string): Array<{ labels: Record<string, string>; value: number }> {
  const out: Array<{ labels: Record<string, string>; value: number }> = [];
  for (const [k, value] of s.values) {
    if (!k.startsWith(`${name}{`)) continue;
    const labels: Record<string, string> = {};
    for (const m of k.slice(name.length + 1, -1).matchAll(/(\w+)="([^"]*)"/g)) labels[m[1]!] = m[2]!;
    out.push({ labels, value });
  }
  return out;
}

/** A series' value for the one label `key`="`value`" (0 when the scrape has none). */
function byLabel(s: Scrape, name: string, key: string, value: string): number {
  return labelled(s, name).find((r) => r.labels[key] === value)?.value ?? 0;
}

/** One watched tab: `label` names it as the home does (tab number, seat). */
export interface TabFigures { label: string; fps: number; encodeMsPerFrame: number; kbPerFrame: number; viewers: number; skippedPerS: number }
/** One watched terminal. */
export interface TerminalFigures { label: string; mbPerS: number; viewers: number }

export interface ProfileFigures { profile: string; fps: number; encodeMsPerFrame: number; kbPerFrame: number; hostRssMb: number; hostCpuPct: number }
export interface Figures {
  at: number;
  profiles: ProfileFigures[];
  /** Per watched tab, from `forge_tab_*` (the encoder's by frame id, joined with the relay's). */
  tabs: TabFigures[];
  /** Per watched terminal, from `forge_terminal_viewers` and `forge_terminal_viewer_bytes_total`. */
  terminalList: TerminalFigures[];
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
  const tabs = labelled(now, 'forge_tab_encode_frames_total').map(({ labels }) => {
    const f = labels.frame ?? '';
    const delta = (name: string): number => d(byLabel(prev, name, 'frame', f), byLabel(now, name, 'frame', f));
    const frames = delta('forge_tab_encode_frames_total');
    return {
      label: `tab ${labels.tab} ${labels.seat ?? ''}`.trim(),
      fps: frames / dt,
      encodeMsPerFrame: frames ? (delta('forge_tab_encode_seconds_total') * 1000) / frames : 0,
      kbPerFrame: frames ? delta('forge_tab_encode_bytes_total') / 1024 / frames : 0,
      viewers: byLabel(now, 'forge_tab_viewers', 'frame', f),
      skippedPerS: delta('forge_tab_frames_skipped_total') / dt,
    };
  });
  const terminalList = labelled(now, 'forge_terminal_viewers').map(({ labels, value }) => {
    const bytes = (s: Scrape): number => labelled(s, 'forge_terminal_viewer_bytes_total').find((r) => r.labels.terminal === labels.terminal)?.value ?? 0;
    return { label: `terminal ${labels.terminal} ${labels.seat ?? ''}`.trim(), mbPerS: d(bytes(prev), bytes(now)) / MB / dt, viewers: value };
  });
  return {
    at: now.at,
    profiles: list,
    tabs,
    terminalList,
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

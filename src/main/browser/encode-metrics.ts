/**
 * Prometheus text for the running hosts' encoders: which encoder each runs and its counters since
 * its frame pipeline started (a host that restarts starts them again, which Prometheus reads as a
 * counter reset).
 */
import type { EncodeMode, EncodeStats } from '../../workers/encode/protocol.js';

export interface EncoderView { encodeMode: EncodeMode; encodeStats: Omit<EncodeStats, 't'> }

const COUNTERS: Array<[name: string, help: string, value: (s: Omit<EncodeStats, 't'>) => number]> = [
  ['forge_encode_frames_total', 'frames encoded and handed to the relay', (s) => s.frames],
  ['forge_encode_keyframes_total', 'of those, whole pictures', (s) => s.keyframes],
  ['forge_encode_patches_total', 'of those, patches of changed bands', (s) => s.patches],
  ['forge_encode_bytes_total', 'WebP bytes encoded', (s) => s.bytes],
  ['forge_encode_seconds_total', 'time encodes took, start to end (two run at once)', (s) => s.encodeMs / 1000],
  ['forge_encode_dropped_total', 'captured frames replaced by a newer one before their encode', (s) => s.dropped],
];

export function encodeMetrics(hosts: Iterable<[profile: string, view: EncoderView]>): string {
  const all = [...hosts];
  const lines: string[] = [];
  for (const [name, help, value] of COUNTERS) {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`);
    for (const [profile, v] of all) lines.push(`${name}{profile="${profile}",encoder="${v.encodeMode}"} ${value(v.encodeStats)}`);
  }
  return lines.join('\n');
}

/** Per running host: the bytes of its FrameRing the capture has written and not given back, and the ring's whole size. */
export function frameRingMetrics(hosts: Iterable<[profile: string, view: { frameRingHeldBytes: number; frameRingBytes: number; lateFirstPictures: number }]>): string {
  const all = [...hosts];
  return [
    '# HELP forge_first_pictures_late_total first pictures of a tab taken because its window was not seen painted whole in time (a compositor that does not repaint)',
    '# TYPE forge_first_pictures_late_total counter',
    ...all.map(([profile, v]) => `forge_first_pictures_late_total{profile="${profile}"} ${v.lateFirstPictures}`),
    '# HELP forge_frame_ring_held_bytes raw frame ring bytes holding frames written and not given back (a slot is given back when its tab is no longer watched or its layout shrinks)',
    '# TYPE forge_frame_ring_held_bytes gauge',
    ...all.map(([profile, v]) => `forge_frame_ring_held_bytes{profile="${profile}"} ${v.frameRingHeldBytes}`),
    '# HELP forge_frame_ring_bytes raw frame ring size: every slot at the largest viewport',
    '# TYPE forge_frame_ring_bytes gauge',
    ...all.map(([profile, v]) => `forge_frame_ring_bytes{profile="${profile}"} ${v.frameRingBytes}`),
  ].join('\n');
}

/** A watched tab as its per-tab figures name it: `frame` is the id its frames (and the relay's per-tab counters) carry. */
export interface TabEncodeRow { profile: string; frame: number; number: number; pageId: string; seat: string; frames: number; bytes: number; encodeMs: number }

const TAB_COUNTERS: Array<[name: string, help: string, value: (r: TabEncodeRow) => number]> = [
  ['forge_tab_encode_frames_total', 'frames of the tab encoded while it was watched', (r) => r.frames],
  ['forge_tab_encode_bytes_total', 'WebP bytes of the tab encoded while it was watched', (r) => r.bytes],
  ['forge_tab_encode_seconds_total', 'time the tab\'s encodes took while it was watched', (r) => r.encodeMs / 1000],
];

/** Per watched tab: its encoder's counters, labelled so the relay's `forge_tab_*{frame=…}` joins them. */
export function tabEncodeMetrics(rows: TabEncodeRow[]): string {
  const lines: string[] = [];
  for (const [name, help, value] of TAB_COUNTERS) {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`);
    for (const r of rows) lines.push(`${name}{profile="${r.profile}",frame="${r.frame}",tab="${r.number}",page="${r.pageId}",seat="${r.seat}"} ${value(r)}`);
  }
  return lines.join('\n');
}

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

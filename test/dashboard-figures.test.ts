/**
 * The dashboard's figures from two scrapes of /metrics: rates per second, encode ms and KB per
 * frame per profile, a counter that went back (a restart) counted from zero, never negative.
 */
import { describe, expect, it } from 'vitest';
import { figures, parseMetrics } from '../clients/web/dashboard/metrics.js';

const scrape = (frames: number, secs: number, bytes: number, sent: number, at: number) => parseMetrics([
  '# TYPE forge_browser_tabs gauge', 'forge_browser_tabs{profile="acme/main"} 2',
  `forge_encode_frames_total{profile="acme/main",encoder="native"} ${frames}`,
  `forge_encode_seconds_total{profile="acme/main",encoder="native"} ${secs}`,
  `forge_encode_bytes_total{profile="acme/main",encoder="native"} ${bytes}`,
  `forge_relay_frames_sent_total ${sent}`, 'forge_relay_viewers 3', `forge_process_resident_bytes ${300 * 1024 * 1024}`,
].join('\n'), at);

describe('the dashboard\'s figures', () => {
  it('a second of 60 frames at 4 ms and 20 KB each reads 60 fps, 4 ms and 20 KB a frame', () => {
    const f = figures(scrape(100, 1, 100 * 20480, 500, 0), scrape(160, 1.24, 160 * 20480, 680, 1000));
    expect(f.profiles).toHaveLength(1);
    expect(f.profiles[0]!.fps).toBeCloseTo(60);
    expect(f.profiles[0]!.encodeMsPerFrame).toBeCloseTo(4);
    expect(f.profiles[0]!.kbPerFrame).toBeCloseTo(20);
    expect(f.framesSentPerS).toBeCloseTo(180);
    expect(f.viewers).toBe(3);
    expect(f.serverRssMb).toBeCloseTo(300);
  });

  it('a counter that went back (the server restarted) counts from zero, never below', () => {
    const f = figures(scrape(1000, 10, 1e6, 5000, 0), scrape(30, 0.1, 3e4, 90, 1000));
    expect(f.profiles[0]!.fps).toBeCloseTo(30);
    expect(f.framesSentPerS).toBeCloseTo(90);
  });
});

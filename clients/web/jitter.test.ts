import { describe, expect, it } from 'vitest';
import { JitterBuffer } from './jitter.js';
import { SOUND_JITTER_MAX_MS, SOUND_JITTER_START_MS, SOUND_JITTER_STEP_MS } from './limits.js';

const PACKET = 0.02;

describe('the page sound\'s jitter buffer', () => {
  it('plays packets that come on time back to back, a start buffer after the first arrived', () => {
    const j = new JitterBuffer();
    const starts = [0, 1, 2, 3].map((i) => j.schedule(10 + i * PACKET, PACKET));
    expect(starts[0]).toBeCloseTo(10 + SOUND_JITTER_START_MS / 1000, 6);
    for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).toBeCloseTo(PACKET, 6);
    expect(j.late).toBe(0);
  });

  it('grows a step for each packet that came after the sound ran dry, up to its ceiling', () => {
    const j = new JitterBuffer();
    let now = 10;
    j.schedule(now, PACKET);
    for (let i = 0; i < 20; i++) {
      now += PACKET + SOUND_JITTER_MAX_MS / 1000 + 0.01; // later than any buffer covers, within a gap's length
      if ((now - 10) > 1) break;
      j.schedule(now, PACKET);
    }
    expect(j.late).toBeGreaterThan(0);
    expect(j.jitterMs).toBeGreaterThan(SOUND_JITTER_START_MS);
    expect(j.jitterMs).toBeLessThanOrEqual(SOUND_JITTER_MAX_MS);
  });

  it('takes a long gap as the page going quiet: the next sound starts afresh without growing', () => {
    const j = new JitterBuffer();
    j.schedule(10, PACKET);
    const at = j.schedule(12, PACKET);
    expect(at).toBeCloseTo(12 + SOUND_JITTER_START_MS / 1000, 6);
    expect(j.late).toBe(0);
  });

  it('comes back down a step after a calm spell', () => {
    const j = new JitterBuffer();
    j.schedule(10, PACKET);
    j.schedule(10 + 0.07, PACKET); // late: the sound ran dry at 10.04
    expect(j.jitterMs).toBe(SOUND_JITTER_START_MS + SOUND_JITTER_STEP_MS);
    let now = 10.07;
    for (let i = 0; i < 600; i++) { now += PACKET; j.schedule(now, PACKET); }
    expect(j.jitterMs).toBe(SOUND_JITTER_START_MS);
  });
});

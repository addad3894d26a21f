/**
 * When the page sound's next packet plays: a jitter buffer that starts small and grows only when
 * the link shows it must. A packet that arrives after the sound before it ran out is late: the
 * buffer grows one step (to SOUND_JITTER_MAX_MS at most), and a calm spell takes a step off again.
 * A long gap is the page going quiet (silence is not sent), so the next sound simply starts
 * afresh. Times are seconds on the audio clock, as Web Audio schedules them.
 */
import { SOUND_BACKLOG_MAX_MS, SOUND_GAP_MS, SOUND_JITTER_CALM_MS, SOUND_JITTER_MAX_MS, SOUND_JITTER_START_MS, SOUND_JITTER_STEP_MS } from './limits.js';

export class JitterBuffer {
  /** The buffer now, ms. */
  jitterMs = SOUND_JITTER_START_MS;
  /** Late packets seen (each grew the buffer, up to its ceiling). */
  late = 0;
  /** The audio time the next packet starts at; 0 before the first. */
  private nextAt = 0;
  private calmSince = 0;

  /** The start time for a packet of `duration` s arriving at audio time `now`; the one after it follows on. */
  schedule(now: number, duration: number): number {
    const behind = now - this.nextAt;
    if (this.nextAt === 0 || behind * 1000 > SOUND_GAP_MS || this.nextAt - now > SOUND_BACKLOG_MAX_MS / 1000) {
      // A first sound, a sound after quiet, or a backlog past its bound: start a buffer's worth ahead.
      this.nextAt = now + this.jitterMs / 1000;
      this.calmSince = now;
    } else if (behind > 0) {
      // The sound ran dry before this packet came: the link is rougher than the buffer.
      this.late++;
      this.jitterMs = Math.min(SOUND_JITTER_MAX_MS, this.jitterMs + SOUND_JITTER_STEP_MS);
      this.nextAt = now + this.jitterMs / 1000;
      this.calmSince = now;
    } else if ((now - this.calmSince) * 1000 >= SOUND_JITTER_CALM_MS && this.jitterMs > SOUND_JITTER_START_MS) {
      // A calm spell takes a step off; a playing sound keeps its timing (moving it would skip or
      // overlap), so the smaller buffer holds from the next start after quiet.
      this.jitterMs = Math.max(SOUND_JITTER_START_MS, this.jitterMs - SOUND_JITTER_STEP_MS);
      this.calmSince = now;
    }
    const at = this.nextAt;
    this.nextAt += duration;
    return at;
  }

  /** Forgets the stream (the client showed another tab, or let go of control). */
  reset(): void {
    this.nextAt = 0;
  }
}

/**
 * After tabs are unloaded to keep the memory budget, the host's live renderers are asked to give
 * back what they hold (a moderate memory-pressure signal to every process: V8 collects, Blink
 * drops its caches). Closing a tab frees its renderer only when the renderer hosted nothing else;
 * Chromium puts same-site tabs in a renderer that hosted others before, which keeps what those
 * left behind. `./forge bench tabs`, one run each, one after another on the same busy machine: the
 * capped host held 829 MiB at 20 tabs and 993 at 60 (its renderers 503 and 661) without a signal;
 * 721 and 842 (393 and 505) with one after each unload; 782 and 913 (490 and 612) with this
 * gathered one. Less, not flat: the growth from 20 to 60 tabs went from 164 to 121-131 MiB. Moderate, not critical: a critical signal lets Chromium discard
 * background tabs on its own, and forge keeps the tabs.
 */

/**
 * Quiet time after the last unload before the signal, ms: a burst of unloads (an agent opening
 * tabs one after another) sends one signal, and a collection does not land on every open.
 */
export const MEMORY_RELIEF_DELAY_MS = 2_000;
/** Longest an unload waits for its signal while unloads keep coming, ms: a long burst still gets one this often. */
export const MEMORY_RELIEF_MAX_WAIT_MS = 10_000;

export class MemoryRelief {
  private timer?: NodeJS.Timeout;
  /** When the first unload still waiting for its signal happened (ms since epoch; 0: none waits). */
  private waitingSince = 0;

  /** `signal` sends the signal to the host now (its failure is the host's going, and is let go). */
  constructor(private readonly signal: () => Promise<unknown>) {}

  /** An unload happened: the signal goes once MEMORY_RELIEF_DELAY_MS pass without another. */
  soon(): void {
    clearTimeout(this.timer);
    const now = Date.now();
    this.waitingSince ||= now;
    const delay = Math.min(MEMORY_RELIEF_DELAY_MS, this.waitingSince + MEMORY_RELIEF_MAX_WAIT_MS - now);
    this.timer = setTimeout(() => this.send(), Math.max(0, delay));
    this.timer.unref();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.waitingSince = 0;
  }

  private send(): void {
    this.timer = undefined;
    this.waitingSince = 0;
    void this.signal().catch(() => undefined);
  }
}

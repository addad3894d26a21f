/** What one fuzz target's run found: counts, faults with their seed and input, and the server's memory. */

/** Faults a run keeps in full; past this they are counted only, so one bad path cannot flood the report. */
export const FAULTS_KEPT_MAX = 20;
/**
 * Growth of the server's RSS a run may show, MB: V8 grows its heap to a plateau under load and
 * keeps it; a leak of even a few hundred bytes an input passes this over 10^6 inputs.
 */
export const RSS_GROWTH_MAX_MB = 200;

export interface Fault {
  target: string;
  seed: number;
  /** The input whose answer broke the rule, or the last one sent before it (the window's first is `from`). */
  index: number;
  from: number;
  label: string;
  what: string;
}

export interface TargetResult {
  target: string;
  seed: number;
  inputs: number;
  /** Worded refusals: error messages, JSON-RPC errors, tool results with isError, worded closes. */
  refusals: number;
  /** Sockets the server closed with a code and words (a rate bound, a first message that was not hello). */
  closes: number;
  /** The server process ended or stopped answering. */
  crashes: number;
  faults: Fault[];
  faultCount: number;
  /** The most common refusals by their first words, with their counts. */
  top_refusals?: Array<[string, number]>;
  rss_mb_before: number;
  /** Once settled after the last input (see settledRssMb): what the run left behind, not its last input's garbage. */
  rss_mb_after: number;
}

/** Distinct refusal sentences a run tallies (their first words): enough to see what the inputs mostly hit. */
const REFUSAL_KINDS_MAX = 200;

export class Findings {
  readonly result: TargetResult;
  /** Refusals by their first words, for seeing what a run's inputs reached. */
  readonly refusalWords = new Map<string, number>();

  refused(words: string): void {
    this.result.refusals++;
    const key = words.replace(/\d+/g, 'N').slice(0, 70);
    if (this.refusalWords.has(key) || this.refusalWords.size < REFUSAL_KINDS_MAX) this.refusalWords.set(key, (this.refusalWords.get(key) ?? 0) + 1);
  }

  /** The most common refusals, most first. */
  topRefusals(n = 12): Array<[string, number]> {
    return [...this.refusalWords].sort((a, b) => b[1] - a[1]).slice(0, n);
  }

  constructor(target: string, seed: number) {
    this.result = { target, seed, inputs: 0, refusals: 0, closes: 0, crashes: 0, faults: [], faultCount: 0, rss_mb_before: 0, rss_mb_after: 0 };
  }

  fault(f: Omit<Fault, 'target' | 'seed'>): void {
    const r = this.result;
    r.faultCount++;
    if (r.faults.length < FAULTS_KEPT_MAX) {
      const full = { target: r.target, seed: r.seed, ...f, label: f.label.slice(0, 200), what: f.what.slice(0, 500) };
      r.faults.push(full);
      process.stderr.write(`fuzz: FAULT ${r.target} seed ${r.seed} input ${f.index} (window from ${f.from}): ${full.label}: ${full.what}\n`);
    }
  }
}

/** Prints a run's progress on stderr now and then: the run may take hours at 10^6 inputs. */
export class Progress {
  private last = 0;

  constructor(private readonly target: string, private readonly total: number, private readonly everyMs = 10_000) {}

  tick(done: number, r: TargetResult, rss: number, memory = ''): void {
    const now = Date.now();
    if (now - this.last < this.everyMs && done < this.total) return;
    this.last = now;
    process.stderr.write(`fuzz: ${this.target} ${done}/${this.total} inputs, ${r.refusals} refusals, ${r.closes} closes, ${r.faultCount} faults, rss ${rss.toFixed(0)} MB${memory ? `; ${memory}` : ''}\n`);
  }
}

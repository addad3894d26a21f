/**
 * A seeded PRNG for the fuzzers (mulberry32): one 32-bit seed replays a whole run, input by input.
 * Not for anything secret; it is fast and its sequence is the same on every machine.
 */
export class Rng {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** A whole number in [lo, hi], both included. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** A length skewed to small: most draws are short, a few reach `max`. */
  size(max: number): number {
    const r = this.next();
    return Math.floor(r * r * r * (max + 1));
  }

  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = Math.floor(this.next() * 256);
    return out;
  }

  /** A seed for a child generator: each input draws its own, so input i replays without inputs 0..i-1. */
  fork(): Rng {
    return new Rng(Math.floor(this.next() * 4294967296));
  }
}

/** The seed a run uses when none is given: the clock, printed so the run can be replayed. */
export function freshSeed(): number {
  return (Date.now() ^ (process.pid << 16)) >>> 0;
}

/** The generator for input `index` of a run seeded `seed`: any one input is replayed alone from these two numbers. */
export function inputRng(seed: number, index: number): Rng {
  return new Rng((Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) + Math.imul(index + 1, 0xc2b2ae35)) >>> 0);
}

/**
 * A tab's page calls, one at a time in arrival order: a call starts once the one before it has
 * answered, so a snapshot never reads a page the navigate sent just before it is still leaving.
 * Waiting calls are bounded; past the bound a call is refused in words instead of queued.
 */
import { ForgeError } from '../../shared/errors.js';
import { PAGE_CALLS_QUEUED_PER_TAB_MAX } from '../../shared/limits.js';

interface Lane { tail: Promise<void>; waiting: number }

export class TabCallQueue {
  private lanes = new WeakMap<object, Lane>();

  /**
   * Runs `work` once every call queued on `key` before it has answered. `refusal` names the tab
   * in the sentence a call past the bound reads.
   */
  async run<T>(key: object, refusal: () => string, work: () => Promise<T>): Promise<T> {
    let lane = this.lanes.get(key);
    if (!lane) { lane = { tail: Promise.resolve(), waiting: 0 }; this.lanes.set(key, lane); }
    if (lane.waiting >= PAGE_CALLS_QUEUED_PER_TAB_MAX) {
      throw new ForgeError('calls_queued', `${refusal()} already has ${PAGE_CALLS_QUEUED_PER_TAB_MAX} of your calls waiting; this one was not run — wait for their answers before sending more`);
    }
    const before = lane.tail;
    let done!: () => void;
    lane.tail = new Promise<void>((r) => { done = r; });
    lane.waiting++;
    try {
      await before;
    } finally {
      lane.waiting--;
    }
    try {
      return await work();
    } finally {
      done();
    }
  }
}

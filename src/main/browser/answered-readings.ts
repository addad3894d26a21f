/**
 * A call's snapshot becomes its seat's last reading of the tab only once the call's answer goes
 * out. A call a dialog cut short goes on running in the page (a click waits out the dialog it
 * raised), and the snapshot it takes after the dialog is answered reaches nobody: kept as the
 * seat's reading, it would make browser_handle_dialog's answer say "unchanged" about the very
 * change the agent's answer caused and never saw. Held per call turn (ProfileBrowser.call), so
 * every page call (tools, hand-offs) follows the rule.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** The readings a call took, waiting for its answer to go out. */
type Held = Array<() => void>;

const calls = new AsyncLocalStorage<Held>();

/** Keeps a reading now, or, inside a call run by `withHeldReadings`, once that call is answered. */
export function keepOnAnswer(keep: () => void): void {
  const held = calls.getStore();
  if (held) held.push(keep); else keep();
}

/**
 * Runs `work` with its readings held; `answered()` keeps them (in the order taken), for a call
 * whose answer goes out. A call cut short never calls it, and its readings are dropped.
 */
export function withHeldReadings<T>(work: () => Promise<T>): { result: Promise<T>; answered: () => void } {
  const held: Held = [];
  return {
    result: calls.run(held, work),
    answered: () => { for (const keep of held.splice(0)) keep(); },
  };
}

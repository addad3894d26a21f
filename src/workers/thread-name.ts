/**
 * Names the calling thread for the system's tools (`top -H`, /proc/<pid>/task/<tid>/comm), so an
 * operator sees which of the server's threads spends the CPU: Node leaves every worker named
 * "node". Best effort: where /proc is not writable the thread keeps its name.
 */
import { writeFileSync } from 'node:fs';

/** Longest thread name the kernel keeps, characters (TASK_COMM_LEN less its terminator). */
export const THREAD_NAME_MAX_CHARS = 15;

export function nameThread(name: string): void {
  try {
    writeFileSync('/proc/thread-self/comm', name.slice(0, THREAD_NAME_MAX_CHARS));
  } catch { /* not Linux, or /proc is read-only: the name is only an aid */ }
}

/** How a seat's shell ended, in the words every reader of it gets: the agent's answer and the viewers' line. */
import { constants } from 'node:os';
import type { ShellExit } from '../../workers/pty/protocol.js';

/** "the shell exited (exit code 3)", or "the shell was killed by signal 9 (SIGKILL)". */
export function shellEndWords(how: ShellExit): string {
  if (!how.signal) return `the shell exited (exit code ${how.code})`;
  const name = Object.entries(constants.signals).find(([, v]) => v === how.signal)?.[0];
  return `the shell was killed by signal ${how.signal}${name ? ` (${name})` : ''}`;
}

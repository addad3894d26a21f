/**
 * A line typed at the prompt counts as its command about to run, even while the shell has not yet
 * read it: a wait for "done" right after it waits for that command, and a run right after it is
 * refused as busy rather than sent behind it. A busy machine's shell can take a second to start the command; the
 * shell here takes 600 ms on purpose (a real PTY, a real model; only the shell's slowness is
 * made, by a small program that marks its prompts as forge's shell integration does).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SeatTerminal } from './terminal.js';
import { ready, run, wait } from './commands.js';

/** A shell that marks its prompts (OSC 133 A/B, C, D), starts each line's command 600 ms after reading it, and ignores a line that starts with "#". */
const SLOW_SHELL = String.raw`
const out = (s) => process.stdout.write(s);
const prompt = () => out('\x1b]133;A\x07$ \x1b]133;B\x07');
prompt();
let buf = '';
process.stdin.on('data', (d) => {
  buf += d;
  for (let i = buf.search(/[\r\n]/); i >= 0; i = buf.search(/[\r\n]/)) {
    const line = buf.slice(0, i);
    buf = buf.slice(i + 1);
    if (line.startsWith('#')) continue;
    setTimeout(() => {
      out('\r\n\x1b]133;C\x07');
      setTimeout(() => { out('ran ' + line + '\r\n\x1b]133;D;0\x07'); prompt(); }, 200);
    }, 600);
  }
});
`;

let term: SeatTerminal | null = null;
afterEach(() => { term?.kill('SIGKILL'); term = null; });

async function slowShell(): Promise<SeatTerminal> {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
  term = new SeatTerminal(
    { id: 1, shell: process.execPath, cwd: '/', env, cols: 80, rows: 24 },
    { file: process.execPath, args: ['-e', SLOW_SHELL], env, marks: true },
    () => undefined,
  );
  await ready(term);
  expect(term.marks.seen).toBe(true);
  return term;
}

describe('a wait for done right after a typed line', () => {
  it('waits for the command of the line even before the shell has started it', async () => {
    const t = await slowShell();
    t.write('work\r');
    const r = await wait(t, 'done', undefined, 10_000);
    expect(r.done).toBe(true);
    expect(t.marks.lastDone?.output).toContain('ran work');
  });

  it('answers done once the grace is past when the shell never runs the line', async () => {
    const t = await slowShell();
    t.write('# a comment the shell keeps to itself\r');
    const r = await wait(t, 'done', undefined, 10_000);
    expect(r).toMatchObject({ done: true, source: 'osc133' });
    expect(t.marks.lastDone).toBeNull();
  });
});

describe('a run right after a typed line', () => {
  it('is refused as busy while the typed line is about to run, and does not answer with its output', async () => {
    const t = await slowShell();
    t.write('work\r');
    await expect(run(t, 'other', 10_000)).rejects.toThrow(/a command is still running/);
    const r = await wait(t, 'done', undefined, 10_000);
    expect(r.done).toBe(true);
    expect(t.marks.lastDone?.output).toContain('ran work');
  });

  it('runs its own command once a typed line the shell never runs has been let go', async () => {
    const t = await slowShell();
    t.write('# a comment the shell keeps to itself\r');
    const r = await run(t, 'other', 10_000);
    expect(r.output).toContain('ran other');
  });
});

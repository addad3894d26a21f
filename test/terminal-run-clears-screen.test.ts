/**
 * A command that erases the screen (`clear`, ESC [2J, ESC [3J, a reset) answers its run with
 * what it wrote after the erase, and is never called cut for it: the erase drops the rows the
 * output began on, which is not output outgrowing the scrollback.
 */
import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import { forgeTest } from './fixtures.js';

const SEAT = 'default/proj/lead';

type Run = { output: string; exit_code: number | null; cut?: boolean };

const it = forgeTest();

describe('terminal__run of a command that erases the screen', () => {
  let agent: Agent;

  it.beforeAll(async ({ agentFor }) => {
    agent = await agentFor(SEAT);
    // Rows of history above the prompt, so an erase has scrollback to drop.
    await agent.call('terminal__run', { command: 'seq 1 200' });
  });

  it('clear then a line gives that line, not cut', async () => {
    const res = await agent.call('terminal__run', { command: 'clear; echo after-clear' });
    expect(res.structured as Run).toMatchObject({ output: 'after-clear', exit_code: 0 });
    expect((res.structured as Run).cut).toBeUndefined();
    expect(res.text).not.toMatch(/longer than the terminal keeps/);
  });

  it('output written before the command\'s own erase is left out, what follows it is whole', async () => {
    await agent.call('terminal__run', { command: 'seq 1 100' });
    const res = await agent.call('terminal__run', { command: 'echo before; printf "\\033[2J\\033[H"; echo one; echo two' });
    expect(res.structured as Run).toMatchObject({ output: 'one\ntwo', exit_code: 0 });
    expect((res.structured as Run).cut).toBeUndefined();
  });

  it('after a reset (ESC c) the run gives what followed it', async () => {
    const res = await agent.call('terminal__run', { command: 'printf "\\033c"; echo after-reset' });
    expect(res.structured as Run).toMatchObject({ output: 'after-reset', exit_code: 0 });
    expect((res.structured as Run).cut).toBeUndefined();
  });

  it('an erase followed by more output than the terminal keeps is still called cut, and ends at the output\'s end', async () => {
    const res = await agent.call('terminal__run', { command: 'clear; seq 1 12000' });
    const s = res.structured as Run;
    expect(s.cut).toBe(true);
    expect(s.output.split('\n').pop()).toBe('12000');
    expect(s.output.split('\n').length).toBeGreaterThan(1000);
  });

  it('the next plain command after them answers as before', async () => {
    const res = await agent.call('terminal__run', { command: 'echo hi; false' });
    expect(res.structured as Run).toMatchObject({ output: 'hi', exit_code: 1 });
  });
});

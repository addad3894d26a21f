/**
 * A terminal tool called with an argument it does not take is refused naming it, as the browser
 * tools are: a misnamed argument (`data` for `text`) is never dropped in silence.
 */
import { describe, expect } from 'vitest';
import { forgeTest } from './fixtures.js';

const it = forgeTest({ toml: '[terminal]\nshell = "/bin/sh"\n' });

describe('terminal tools take only their own arguments', () => {
  it('a misnamed argument is refused naming it, and nothing is typed', async ({ agentFor }) => {
    const a = await agentFor('default/args/lead');
    const w = await a.call('terminal__write', { data: 'echo typed-anyway\r' });
    expect(w.isError).toBe(true);
    expect(w.text).toMatch(/data/);
    const r = await a.call('terminal__run', { command: 'echo fine', cwd: '/tmp' });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/cwd/);
    const read = await a.call('terminal__read', {});
    expect(read.isError).toBe(false);
    expect(read.text).not.toContain('typed-anyway');
    expect(read.text).not.toContain('fine');
  });
});

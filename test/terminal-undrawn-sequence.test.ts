/**
 * A sequence the screen model cannot take is skipped, the rest of the output is drawn, and the
 * agent is told once, on its next terminal call, that its screen may differ from the program's.
 * A real server, shell and MCP client. No sequence is known to make this xterm.js throw now that
 * the erase above is mended, so the throw is made on purpose (FORGE_TEST_MODEL_THROW_OSC: the
 * model's handler for that OSC throws) as a stand-in for the next such defect.
 */
import { describe, expect } from 'vitest';
import { forgeTest } from './fixtures.js';

const THROWING_OSC = 7777;
const SEAT = 'default/undrawn/lead';
const it = forgeTest({ env: { FORGE_TEST_MODEL_THROW_OSC: String(THROWING_OSC) } });

describe('a sequence the screen model cannot take', () => {
  it('is skipped, what follows it is drawn, and the agent hears of it once', async ({ forge, agentFor }) => {
    const a = await agentFor(SEAT);
    await a.call('terminal__run', { command: 'echo ready' });
    const run = await a.call('terminal__run', { command: `printf '\\033]${THROWING_OSC};x\\007'; echo after-the-sequence` });
    expect(run.isError).toBe(false);
    expect(run.text).toContain('after-the-sequence');
    expect(run.text).toMatch(/could not draw one sequence of the program's output \(the last: an OSC string \(7777\).*may differ/);
    const read = await a.call('terminal__read', {});
    expect(read.isError).toBe(false);
    expect(read.text).toContain('after-the-sequence');
    expect(read.text).not.toContain('could not draw');
    const again = await a.call('terminal__run', { command: 'echo still-drawing' });
    expect(again.text).toContain('still-drawing');
    expect(again.text).not.toContain('could not draw');
    expect(forge.output()).toContain('the screen model could not draw a sequence of the output');
  });
});

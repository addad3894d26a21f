/**
 * A reset after hyperlinks leaves no link behind, and with it none of the old buffers the links'
 * markers held: a long session that prints links and runs `reset` does not grow.
 */
import { describe, expect, it } from 'vitest';
import xtermHeadless from '@xterm/headless';
import { dropLinksOnReset, linksHeld } from './term-link-reset.js';

const { Terminal } = xtermHeadless;

function model(mended: boolean): InstanceType<typeof Terminal> {
  const t = new Terminal({ cols: 80, rows: 24, scrollback: 2000, allowProposedApi: true });
  if (mended) dropLinksOnReset(t);
  return t;
}
const write = (t: InstanceType<typeof Terminal>, s: string): Promise<void> => new Promise((r) => t.write(s, r));
const link = (uri: string, text: string): string => `\x1b]8;;${uri}\x07${text}\x1b]8;;\x07`;

describe('hyperlinks across a reset', () => {
  it('a reset forgets every link the old screen held, so repeated resets hold nothing', async () => {
    const t = model(true);
    for (let i = 0; i < 50; i++) await write(t, `${link(`http://example.test/${i}`, 'docs')}\r\n${'text\r\n'.repeat(20)}\x1bc`);
    expect(linksHeld(t)).toBe(0);
  });

  it('without the drop, xterm.js keeps every link past its reset (what this mends)', async () => {
    const t = model(false);
    for (let i = 0; i < 50; i++) await write(t, `${link(`http://example.test/${i}`, 'docs')}\r\n\x1bc`);
    expect(linksHeld(t)).toBe(50);
  });

  it('links written after a reset are kept and still resolve, and a reset still clears the screen', async () => {
    const t = model(true);
    await write(t, `${link('http://example.test/old', 'old')}\r\nbefore\x1bc`);
    await write(t, `${link('http://example.test/new', 'new')}\r\nafter`);
    expect(linksHeld(t)).toBe(1);
    const lines = Array.from({ length: 3 }, (_, y) => t.buffer.active.getLine(y)?.translateToString(true));
    expect(lines).toEqual(['new', 'after', '']);
  });

  it('links stay while no reset comes', async () => {
    const t = model(true);
    for (let i = 0; i < 5; i++) await write(t, `${link(`http://example.test/${i}`, `l${i}`)}\r\n`);
    expect(linksHeld(t)).toBe(5);
  });
});

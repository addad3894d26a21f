/**
 * Round-trip repaint: for recorded VT streams, a fresh model fed only the repaint equals the
 * live model cell by cell, cursor and modes included.
 */
import { describe, expect, it } from 'vitest';
import xtermHeadless from '@xterm/headless';
import serializeAddon from '@xterm/addon-serialize';
import nodePty from 'node-pty';
import { ModeWatch, repaint, useClientWidths } from './screen.js';

const { Terminal } = xtermHeadless;
const { SerializeAddon } = serializeAddon;
type Term = InstanceType<typeof Terminal>;

function model(cols: number, rows: number): { term: Term; modes: ModeWatch; ser: InstanceType<typeof SerializeAddon> } {
  const term = new Terminal({ cols, rows, scrollback: 1000, allowProposedApi: true });
  useClientWidths(term);
  const ser = new SerializeAddon();
  term.loadAddon(ser as never);
  return { term, modes: new ModeWatch(term), ser };
}

const write = (t: Term, d: string | Uint8Array): Promise<void> => new Promise((r) => t.write(d, r));

function cellDump(t: Term, buffer: 'active' | 'normal'): string[] {
  const buf = buffer === 'active' ? t.buffer.active : t.buffer.normal;
  const out: string[] = [];
  for (let y = 0; y < t.rows; y++) {
    const line = buf.getLine(buf.baseY + y);
    const cells: string[] = [];
    for (let x = 0; x < t.cols; x++) {
      const c = line?.getCell(x);
      if (!c) { cells.push('?'); continue; }
      cells.push([c.getChars() || ' ', c.getWidth(), c.getFgColorMode(), c.getFgColor(), c.getBgColorMode(), c.getBgColor(),
        c.isBold(), c.isItalic(), c.isDim(), c.isUnderline(), c.isInverse(), c.isInvisible(), c.isStrikethrough(), c.isBlink()].join(','));
    }
    out.push(`${line?.isWrapped ? 'W' : '-'}|${cells.join('|')}`);
  }
  return out;
}

function state(t: Term, modes: ModeWatch): Record<string, unknown> {
  const b = t.buffer.active;
  return {
    type: b.type, cursorX: b.cursorX, cursorY: b.cursorY, modes: { ...t.modes },
    cursorVisible: modes.cursorVisible, mouseEncoding: modes.mouseEncoding, title: modes.title, cursorStyle: modes.cursorStyle,
    cursorBlink: modes.cursorBlink, kitty: [modes.kittyBase, ...modes.kittyStack], lineDrawing: modes.lineDrawing,
    scrollRegion: modes.scrollRegion(), charsetLevel: modes.charsetLevel(),
  };
}

async function roundTrip(stream: Array<string | Uint8Array>, expectBuffer: 'normal' | 'alternate' = 'normal', cols = 80, rows = 24): Promise<void> {
  const live = model(cols, rows);
  for (const chunk of stream) await write(live.term, chunk);
  expect(live.term.buffer.active.type).toBe(expectBuffer);
  const fresh = model(cols, rows);
  await write(fresh.term, repaint(live.ser, live.modes));
  expect(cellDump(fresh.term, 'active')).toEqual(cellDump(live.term, 'active'));
  expect(cellDump(fresh.term, 'normal')).toEqual(cellDump(live.term, 'normal'));
  expect(state(fresh.term, fresh.modes)).toEqual(state(live.term, live.modes));
  live.term.dispose();
  fresh.term.dispose();
}

/** Records what a real program draws in a real PTY: `keys` are typed after `settleMs`. */
async function record(file: string, args: string[], keys: string[], settleMs = 600, cols = 80, rows = 24): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  const p = nodePty.spawn(file, args, { name: 'xterm-256color', cols, rows, cwd: process.cwd(), env: { ...process.env, TERM: 'xterm-256color', LESS: '', PAGER: 'less' } as Record<string, string>, encoding: null });
  p.onData((d) => chunks.push(new Uint8Array(d as unknown as Buffer)));
  const exited = new Promise<void>((r) => p.onExit(() => r()));
  await new Promise((r) => setTimeout(r, settleMs));
  for (const k of keys) {
    p.write(k);
    await new Promise((r) => setTimeout(r, 150));
  }
  p.kill('SIGKILL');
  await exited;
  return chunks;
}

describe('repaint round trip', () => {
  it('restores a shell session with colours, scrollback and a wrapped line', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 60; i++) lines.push(`\x1b[3${i % 8}mline ${i}\x1b[0m \x1b[1;4mbold-under\x1b[0m \x1b[38;5;${i}m256\x1b[38;2;10;${i * 4};200mtrue\x1b[0m\r\n`);
    await roundTrip(['$ ls --color\r\n', ...lines, 'x'.repeat(130), '\r\n\x1b[7minverse\x1b[27m \x1b[9mstrike\x1b[0m\r\n$ ']);
  });

  it('restores wide characters and emoji in their cells', async () => {
    await roundTrip(['$ echo 漢字テスト 😀 é ñ\r\n漢字テスト 😀 é ñ\r\n', '表'.repeat(45), '\r\n$ ', '🚀'.repeat(41), ' ✅ ok']);
  });

  it('an emoji takes two cells in the model, as in the client and the shell', async () => {
    const m = model(20, 3);
    await write(m.term, '🚀x😀');
    expect(m.term.buffer.active.getLine(0)!.getCell(0)!.getWidth()).toBe(2);
    expect(m.term.buffer.active.getLine(0)!.translateToString(true)).toBe('🚀x😀');
    expect(m.term.buffer.active.cursorX).toBe(5);
    m.term.dispose();
  });

  it('restores a full-screen program in the alternate screen with its modes', async () => {
    await roundTrip([
      '$ vim notes\r\n',
      '\x1b]2;notes - VIM\x07\x1b[?1049h\x1b[?1h\x1b=\x1b[?2004h\x1b[?1000h\x1b[?1006h\x1b[2 q\x1b[?25l',
      '\x1b[H\x1b[2J\x1b[1;1Hhello world\x1b[2;1H\x1b[34m~\x1b[0m\x1b[3;1H\x1b[34m~\x1b[0m\x1b[24;1H\x1b[1m-- INSERT --\x1b[0m',
      '\x1b[1;7H\x1b[?25h',
    ], 'alternate');
  });

  it('restores the keyboard, focus, mouse, scroll-region and line-drawing modes a full-screen program set', async () => {
    await roundTrip([
      '$ tui\r\n',
      // Kitty keyboard flags pushed twice and one modified; focus reporting; button-drag mouse in SGR encoding;
      // a blinking bar cursor; margins for a scrolling pane; line drawing in G0 and G1, shifted to G1.
      '\x1b[?1049h\x1b[>1u\x1b[>3u\x1b[=8;2u\x1b[?1004h\x1b[?1002h\x1b[?1006h\x1b[?12h\x1b[6 q',
      '\x1b[H\x1b[2Jheader\x1b[3;20r\x1b[3;1H',
      '\x1b(0lqqk\x1b(B pane\x1b)0\x0eqq\x0f\x0e',
      '\x1b[20;1H\r\n\r\nscrolled inside the pane\x1b[5;7H\x1b[1;33m',
    ], 'alternate');
  });

  it('keeps a kitty flag pop and a finished synchronized update out of the repaint, and a running one in it', async () => {
    await roundTrip(['\x1b[>1u\x1b[>5u\x1b[<u\x1b[?2026hframe\x1b[?2026l']);
    await roundTrip(['\x1b[?2026hhalf a frame']);
  });

  it('restores the hidden cursor of a program that hid it', async () => {
    await roundTrip(['$ top\r\n', '\x1b[?25l\x1b[5;10Hbusy', '\x1b[?1003h\x1b[?1006h']);
  });

  it('restores what a real bash session drew', async () => {
    const stream = await record('/bin/bash', ['--norc', '-i'], ["printf '\\033[31mred\\033[0m 漢字\\n'\r", 'seq 1 40\r', 'echo done\r']);
    await roundTrip(stream);
  });

  it('restores what a real less drew in the alternate screen', async () => {
    const stream = await record('/usr/bin/less', ['package.json'], [' ', '/depend\r']);
    await roundTrip(stream, 'alternate');
  });

  it('restores what a real vim drew in the alternate screen', async () => {
    const stream = await record('/usr/bin/vim', ['-u', 'NONE', '-N', '-n', '-c', 'syntax on', 'package.json'], ['j', 'j', 'iabc', '\x1b']);
    await roundTrip(stream, 'alternate');
  });
});

/**
 * A stop with clients connected is as clean as one without: browser viewers watching frames,
 * terminal viewers on running shells (one mid-flood) and an open MCP session with a call in
 * flight; SIGTERM exits 0, tells every viewer 1001, ends every shell, every Xvfb and Chromium,
 * and removes server.json. Three servers, one after another: the fault was a race.
 */
import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startForge, connectAgent } from './helpers/server.js';
import { servePages } from './helpers/pages.js';
import { openViewer } from './helpers/viewer.js';
import { Viewer } from './helpers/term-viewer.js';
import { processes, survivors, RUN_TAG_VAR } from './helpers/processes.js';
import { TERM_STATE } from '../src/shared/terminal.js';

/** Trials: the abort came on some stops and not others. */
const TRIALS = 3;

const animated = `<title>Anim</title><div id="b" style="position:absolute;top:50px;width:80px;height:80px;background:#36c"></div>
<script>let x = 0; setInterval(() => { x = (x + 9) % 500; document.getElementById('b').style.left = x + 'px'; }, 16);</script>`;

async function waitFor(cond: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) { if (cond()) return true; await new Promise((r) => setTimeout(r, 100)); }
  return cond();
}

/** Every process descending from `pid`. */
function descendants(pid: number): number[] {
  const all = processes();
  const out: number[] = [];
  const walk = (p: number): void => { for (const c of all) if (c.ppid === p) { out.push(c.pid); walk(c.pid); } };
  walk(pid);
  return out;
}

function alive(pids: number[]): number[] {
  const live = new Set(processes().map((p) => p.pid));
  return pids.filter((p) => live.has(p));
}

async function termAttach(info: Parameters<typeof Viewer.open>[0], seat: string): Promise<Viewer> {
  const v = await Viewer.open(info);
  v.send({ t: 'term_attach', seat, cols: 100, rows: 30 });
  await v.until(() => v.message('term_view'), 15_000, 'term_view');
  await v.until(() => v.frames.some((f) => f.flags & 1), 10_000, 'the repaint');
  return v;
}

/** One server with every kind of client connected, stopped with SIGTERM; what a person would see, asserted. */
async function stopConnected(pageUrl: string, trial: number): Promise<void> {
  const tag = randomUUID();
  const forge = await startForge({ env: { [RUN_TAG_VAR]: tag } });
  try {
    const lead = await connectAgent(forge, 'default/stop/lead');
    const worker = await connectAgent(forge, 'default/stop/worker');
    await lead.call('browser_navigate', { url: pageUrl });
    await lead.call('terminal__run', { command: 'echo ready' });
    await worker.call('terminal__run', { command: 'echo ready' });

    const browserViewers = await Promise.all([0, 1, 2].map(() => openViewer(forge.info.port, forge.info.viewer_token)));
    for (const v of browserViewers) v.send({ t: 'attach', tab: 1, w: 640, h: 480 });
    for (const v of browserViewers) await v.waitFrames(2, 20_000);
    const calm = await termAttach(forge.info, 'default/stop/lead');
    const flooded = await termAttach(forge.info, 'default/stop/worker');
    await worker.call('terminal__write', { text: 'yes forge-flood\n' });
    await flooded.until(() => flooded.text().includes('forge-flood\r\nforge-flood'), 15_000, 'the flood');
    // A call in flight when the stop comes: it waits on text that never shows.
    const waiting = lead.call('terminal__wait', { until: 'text', text: 'never-shown-text', timeout_ms: 60_000 }).catch((e: Error) => e);
    await calm.until(() => calm.message('term_state', (m) => m.state === TERM_STATE.agentWaiting), 10_000, 'the agent waiting');

    const closes: Array<Promise<{ code: number; reason: string }>> = [
      ...browserViewers.map((v) => v.ws),
      calm.ws,
      flooded.ws,
    ].map((ws) => new Promise((r) => ws.once('close', (code: number, reason: Buffer) => r({ code, reason: reason.toString() }))));
    const shells = descendants(forge.proc.pid!).filter((p) => {
      const cmd = processes().find((x) => x.pid === p)?.cmd ?? '';
      return /bash|zsh|\byes\b/.test(cmd);
    });
    expect(shells.length).toBeGreaterThanOrEqual(3); // two shells and the flood
    expect(survivors(tag).length).toBeGreaterThan(2);

    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => forge.proc.once('exit', (code, signal) => r({ code, signal })));
    forge.proc.kill('SIGTERM');
    const { code, signal } = await exited;
    const output = forge.output();
    expect({ trial, code, signal }).toEqual({ trial, code: 0, signal: null });
    expect(output).not.toContain('uv_loop_close');
    expect(output).not.toContain('FATAL');
    expect(existsSync(join(forge.stateDir, 'server.json'))).toBe(false);
    for (const c of await Promise.all(closes)) expect(c).toEqual({ code: 1001, reason: 'the server is stopping' });
    expect(await waitFor(() => alive(shells).length === 0, 2000)).toBe(true);
    expect(await waitFor(() => survivors(tag).length === 0, 2000)).toBe(true);
    // The call in flight is answered (its shell ended, or the stop's words), never left hanging.
    const answer = await Promise.race([waiting, new Promise((r) => setTimeout(() => r('no answer'), 5000))]);
    expect(answer).toHaveProperty('text');
    await lead.close().catch(() => undefined);
    await worker.close().catch(() => undefined);
  } finally {
    if (forge.proc.exitCode === null && forge.proc.signalCode === null) forge.proc.kill('SIGKILL');
    await forge.stop();
  }
}

describe('a stop with clients connected', () => {
  it('SIGTERM with viewers, flooding terminals and an MCP session open exits 0 and leaves no process and no server.json behind, three times over', async () => {
    const pages = await servePages({ '/': animated });
    try {
      for (let trial = 0; trial < TRIALS; trial++) await stopConnected(pages.url, trial);
    } finally {
      await pages.close();
    }
  }, 180_000);
});

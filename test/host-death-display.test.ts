/**
 * A host that dies leaves the next host's display alone: the old host's cleanup, still running
 * while the next call starts a fresh Xvfb (which may take the same display number), removes
 * nothing the fresh Xvfb owns, so the new host's frames reach a viewer.
 */
import { existsSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { describe, expect } from 'vitest';
import type { RunningServer, Agent } from './helpers/server.js';
import type { PageServer } from './helpers/pages.js';
import { hostBrowserPid, processes } from './helpers/processes.js';
import { openViewer } from './helpers/viewer.js';
import { forgeTest } from './fixtures.js';

let forge: RunningServer;
let pages: PageServer;
let a: Agent;

/** A page that paints all the time, so a working capture always has frames to send. */
const MOVING = `<title>Moving</title><style>body{margin:0} #box{position:absolute;top:60px;width:60px;height:60px;background:#c63}</style>
<div id="box"></div><script>let x = 0; setInterval(() => { x = (x + 7) % 500; document.getElementById('box').style.left = x + 'px'; }, 16);</script>`;

const it = forgeTest({}, { '/': MOVING });

it.beforeAll(async ({ forge: server, pages: served, agentFor }) => {
  forge = server;
  pages = served;
  a = await agentFor('default/display/lead');
});

/** This server's Xvfb: the one whose framebuffer directory is named after the server's pid. */
function xvfbPid(): number {
  const p = processes().find((x) => /\/Xvfb /.test(x.cmd) && x.cmd.includes(`/dev/shm/forge-fb-${forge.proc.pid}-`));
  if (!p) throw new Error('no Xvfb for this server');
  return p.pid;
}

/** The path of the X socket the process `pid` listens on, read from its own socket fds (the path stays bound even if the file is removed). */
function listeningXSocket(pid: number): string {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try { const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`)); if (m) inodes.add(m[1]!); } catch { /* closed meanwhile */ }
  }
  for (const line of readFileSync('/proc/net/unix', 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length >= 8 && inodes.has(f[6]!) && f[7]!.startsWith('/tmp/.X11-unix/X')) return f[7]!;
  }
  throw new Error(`Xvfb ${pid} listens on no X socket`);
}

async function framesReachAViewer(): Promise<void> {
  // The viewer's token: a person's when the server hands one out, else the shared one.
  const token = forge.info.viewer_token;
  const v = await openViewer(forge.info.port, token);
  try {
    v.send({ t: 'attach', tab: 1, w: 800, h: 600 });
    await v.next('view');
    await v.waitFrames(3, 20_000);
  } finally {
    await v.close();
  }
}

describe('a host death and the next host\'s display', () => {
  for (const [round, which] of [[1, 'Xvfb'], [2, 'Chromium'], [3, 'Xvfb'], [4, 'Chromium'], [5, 'Xvfb']] as const) {
    it(`after kill -9 of ${which} (round ${round}) and an immediate next call, the new host's X socket exists and its frames reach a viewer`, async () => {
      expect((await a.call('browser_navigate', { url: pages.url })).isError).toBe(false);
      const victim = which === 'Xvfb' ? xvfbPid() : hostBrowserPid(forge.stateDir);
      process.kill(victim, 'SIGKILL');
      // The next call at once: its host starts while the dead one is still being cleaned up.
      let next = await a.call('browser_navigate', { url: pages.url });
      // A call that reached the dying host answers with its death; the one after runs on the next host.
      if (next.isError) {
        expect(next.text).toMatch(/^the browser host exited/);
        next = await a.call('browser_navigate', { url: pages.url });
      }
      expect(next.isError, next.text).toBe(false);
      // Past the dead host's whole cleanup (its stop grace and kill waits).
      await new Promise((r) => setTimeout(r, 4_000));
      const socket = listeningXSocket(xvfbPid());
      expect(existsSync(socket), `${socket} of the new Xvfb`).toBe(true);
      await framesReachAViewer();
    });
  }
});

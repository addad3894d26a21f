/**
 * The host's DevTools is forge's alone: Chromium speaks it on a pipe and listens on no port, and
 * forge's own clients reach it through a door on loopback whose secret path only forge's user can
 * read. Another local user, a page of the shared browser, or anyone without the path is refused.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import WebSocket from 'ws';
import CDP from 'chrome-remote-interface';
import { describe, expect } from 'vitest';
import { forgeTest } from './fixtures.js';
import { hostEndpoint } from './helpers/host-devtools.js';
import { hostBrowserPid } from './helpers/processes.js';

const test = forgeTest({}, { '/': '<title>Home</title><p>home page</p>' });

/** Listening TCP sockets' inodes, from the kernel's own tables (state 0A is LISTEN). */
function listeningInodes(): Set<string> {
  const out = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[3] === '0A') out.add(f[9]);
    }
  }
  return out;
}

/** The socket inodes a process holds open. */
function socketInodes(pid: number): string[] {
  const out: string[] = [];
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) out.push(m[1]);
    } catch { /* closed meanwhile */ }
  }
  return out;
}

/** How a WebSocket opened at `url` with `headers` ends: 'open', or the HTTP status it was refused with. */
function tryOpen(url: string, headers: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => { ws.close(); resolve('open'); });
    ws.once('unexpected-response', (_req, res) => { resolve(String(res.statusCode)); ws.terminate(); });
    ws.once('error', (e) => resolve(`error: ${e.message}`));
  });
}

describe('the host\'s DevTools', () => {
  test('Chromium listens on no TCP port: its DevTools is on its pipe alone', async ({ forge, pages, agentFor }) => {
    const a = await agentFor('default/door/lead');
    expect((await a.call('browser_navigate', { url: pages.url })).isError).toBe(false);
    const pid = hostBrowserPid(forge.stateDir);
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    expect(cmd).toContain('--remote-debugging-pipe');
    expect(cmd.some((x) => x.startsWith('--remote-debugging-port'))).toBe(false);
    const listening = listeningInodes();
    expect(socketInodes(pid).filter((i) => listening.has(i))).toEqual([]);
  });

  test('the door\'s endpoint is in a file only forge\'s own user can read', async ({ forge, agentFor }) => {
    await agentFor('default/door/lead');
    const file = `${forge.stateDir}/profiles/default/default/devtools-endpoint`;
    expect(statSync(file).mode & 0o077).toBe(0);
    expect(hostEndpoint(forge.stateDir)).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/devtools\/browser\/[0-9a-f]{48}$/);
  });

  test.skipIf(process.getuid?.() !== 0)('another local user can neither read the endpoint nor open the door without it', async ({ forge, agentFor }) => {
    await agentFor('default/door/lead');
    const url = new URL(hostEndpoint(forge.stateDir));
    // As `nobody`: read the file, then try the door at its well-known paths.
    const probe = `
      const fs = require('node:fs');
      let read = 'read';
      try { fs.readFileSync(${JSON.stringify(`${forge.stateDir}/profiles/default/default/devtools-endpoint`)}); } catch (e) { read = e.code; }
      Promise.all(['/json/version', '/json/list', '/devtools/browser'].map((p) => fetch('http://127.0.0.1:${url.port}' + p).then((r) => r.status, (e) => e.message)))
        .then((s) => console.log(JSON.stringify({ read, statuses: s })));`;
    const out = execFileSync('/usr/bin/setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', probe], { encoding: 'utf8' });
    const seen = JSON.parse(out) as { read: string; statuses: number[] };
    expect(seen.read).toBe('EACCES');
    expect(seen.statuses).toEqual([404, 404, 404]);
  });

  test('a WebSocket to the door is refused without its secret path, and with an Origin even on it', async ({ forge, agentFor }) => {
    await agentFor('default/door/lead');
    const endpoint = hostEndpoint(forge.stateDir);
    expect(await tryOpen(endpoint.replace(/[0-9a-f]{48}$/, '0'.repeat(48)))).toBe('404');
    expect(await tryOpen(endpoint, { Origin: 'http://127.0.0.1:8000' })).toBe('404');
    expect(await tryOpen(endpoint)).toBe('open');
  });

  test('a client of the door cannot speak on a session another client attached', async ({ forge, pages, agentFor }) => {
    const a = await agentFor('default/door/lead');
    await a.call('browser_navigate', { url: pages.url });
    const endpoint = hostEndpoint(forge.stateDir);
    const one = await CDP({ target: endpoint, local: true });
    const two = await CDP({ target: endpoint, local: true });
    try {
      const { targetInfos } = await one.send('Target.getTargets') as { targetInfos: Array<{ targetId: string; type: string; url: string }> };
      const page = targetInfos.find((t) => t.type === 'page' && t.url === pages.url)!;
      const { sessionId } = await one.send('Target.attachToTarget', { targetId: page.targetId, flatten: true }) as { sessionId: string };
      const mine = await one.send('Runtime.evaluate', { expression: 'document.title', returnByValue: true }, sessionId) as { result: { value: string } };
      expect(mine.result.value).toBe('Home');
      await expect(two.send('Runtime.evaluate', { expression: 'document.title' }, sessionId)).rejects.toThrow(/Session with given id not found/);
    } finally {
      await one.close();
      await two.close();
    }
  });

  test('a page of the shared browser that knows the door\'s endpoint still cannot open it', async ({ forge, pages, agentFor }) => {
    const a = await agentFor('default/door/lead');
    await a.call('browser_navigate', { url: pages.url });
    const endpoint = hostEndpoint(forge.stateDir);
    const r = await a.call('browser_evaluate', { function: `() => new Promise((resolve) => {
      const ws = new WebSocket(${JSON.stringify(endpoint)});
      ws.onopen = () => resolve('opened');
      ws.onerror = () => resolve('refused');
    })` });
    expect(r.text).toContain('refused');
    expect(r.text).not.toContain('opened');
  });
});

/**
 * Each host's audio sink lives and ends with the host: one PulseAudio daemon per host, Chromium
 * playing into it unmuted, nothing left after a stop or a kill -9 of the server; a host whose
 * sink cannot start still starts, muted, and the log says why.
 */
import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { startForge, connectAgent } from './helpers/server.js';
import { servePages } from './helpers/pages.js';
import { survivors, RUN_TAG_VAR, type Proc } from './helpers/processes.js';

async function waitFor(cond: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) { if (cond()) return true; await new Promise((r) => setTimeout(r, 100)); }
  return cond();
}

const isDaemon = (p: Proc): boolean => /(^|\/)pulseaudio /.test(p.cmd);
const isBrowser = (p: Proc): boolean => /(^|\/)chromium /.test(p.cmd) && !p.cmd.includes('--type=');
const envOf = (pid: number): string[] => readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');

describe('a host\'s audio sink starts and ends with the host', () => {
  it('the host has its own PulseAudio daemon, Chromium plays into it unmuted, and a stop leaves none', async () => {
    const tag = randomUUID();
    const forge = await startForge({ env: { [RUN_TAG_VAR]: tag } });
    const pages = await servePages({ '/': '<p>hi</p>' });
    const a = await connectAgent(forge, 'default/p/lead');
    await a.call('browser_navigate', { url: pages.url });
    const daemons = survivors(tag).filter(isDaemon);
    expect(daemons.length).toBe(1);
    expect(daemons.every((d) => d.cmd.includes('--daemonize=no') && d.cmd.includes('--exit-idle-time=-1') && d.cmd.includes(' -n '))).toBe(true);
    // In a process group of its own, as Xvfb is: stopping the host ends the group.
    expect(daemons.every((d) => d.pgrp === d.pid)).toBe(true);
    const browsers = survivors(tag).filter(isBrowser);
    expect(browsers.length).toBe(1);
    // Its socket is in the host's own state, not a shared system daemon's.
    const server = envOf(browsers[0]!.pid).find((e) => e.startsWith('PULSE_SERVER='));
    expect(server).toMatch(new RegExp(`^PULSE_SERVER=unix:${forge.stateDir}/.+/pulse/native$`));
    expect(browsers.every((c) => !c.cmd.includes('--mute-audio'))).toBe(true);
    await a.close();
    forge.proc.kill('SIGTERM');
    await new Promise((r) => forge.proc.once('exit', r));
    expect(await waitFor(() => survivors(tag).length === 0, 3000)).toBe(true);
    await forge.stop();
    await pages.close();
  }, 120_000);

  it('kill -9 of the server takes the audio daemon too', async () => {
    const tag = randomUUID();
    const forge = await startForge({ env: { [RUN_TAG_VAR]: tag } });
    const pages = await servePages({ '/': '<p>hi</p>' });
    const a = await connectAgent(forge, 'default/p/lead');
    await a.call('browser_navigate', { url: pages.url });
    expect(survivors(tag).filter(isDaemon).length).toBe(1);
    forge.proc.kill('SIGKILL');
    await new Promise((r) => forge.proc.once('exit', r));
    await waitFor(() => survivors(tag).length === 0, 5000);
    expect(survivors(tag).map((p) => p.cmd.slice(0, 80))).toEqual([]);
    await a.close().catch(() => undefined);
    await forge.stop();
    await pages.close();
  }, 120_000);

  it('a host whose audio sink cannot start still starts, muted, and the log says why', async () => {
    const tag = randomUUID();
    const forge = await startForge({ env: { [RUN_TAG_VAR]: tag, FORGE_PULSEAUDIO: '/nonexistent/pulseaudio' } });
    const pages = await servePages({ '/': '<title>Up</title><p>hi</p>' });
    const a = await connectAgent(forge, 'default/p/lead');
    const r = await a.call('browser_navigate', { url: pages.url });
    expect(r.isError).toBe(false);
    expect(survivors(tag).filter(isDaemon)).toEqual([]);
    expect(survivors(tag).filter(isBrowser).every((c) => c.cmd.includes('--mute-audio'))).toBe(true);
    expect(forge.output()).toContain('the browser host started muted: its audio sink did not start');
    expect(forge.output()).toContain('/nonexistent/pulseaudio is not installed');
    await a.close();
    await forge.stop();
    await pages.close();
  }, 120_000);
});

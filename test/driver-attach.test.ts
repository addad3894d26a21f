import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrowserHost } from '../src/main/browser/host/host.js';
import { Driver } from '../src/main/browser/driver.js';

const dir = mkdtempSync(join(tmpdir(), 'forge-attach-'));
const host = new BrowserHost({ profileKey: 'default/attach', profileDir: join(dir, 'default', 'attach') });

afterAll(async () => {
  try { process.kill(host.pid, 'SIGCONT'); } catch { /* gone */ }
  await host.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('the driver\'s attach is bounded', () => {
  it('a host whose endpoint stops answering is named after the bound and a fresh attempt, not waited on forever', async () => {
    await host.start();
    // A real fault: the browser process is stopped, so its DevTools endpoint accepts nothing.
    process.kill(host.pid, 'SIGSTOP');
    const err = await Driver.attach(host, 1500).then(() => undefined, (e: Error) => e);
    expect(err?.message).toMatch(new RegExp(`^the host is not answering: no driver could attach to default/attach \\(pid ${host.pid}\\) within 1\\.5 s`));
    process.kill(host.pid, 'SIGCONT');
    const driver = await Driver.attach(host, 10_000);
    expect(driver.context.pages().length).toBeGreaterThan(0);
    await driver.close();
  });
});

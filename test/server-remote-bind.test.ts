/**
 * forge does not serve plain HTTP beyond loopback: a [server] host that is not a loopback address,
 * without TLS, stops the server in words that say what to do; insecure_remote (a TLS proxy on
 * another host stands in front) lets it serve.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startForge } from './helpers/server.js';

describe('binding beyond loopback', () => {
  it('host = "0.0.0.0" without TLS is refused at start naming the file and line, and nothing listens', () => {
    const dir = mkdtempSync(join(tmpdir(), 'forge-remote-'));
    writeFileSync(join(dir, 'forge.toml'), '[org]\nname = "acme"\n\n[server]\nhost = "0.0.0.0"\n');
    const r = spawnSync(process.execPath, ['dist/src/main/cli.js', 'serve', '--state', join(dir, 'state'), '--port', '0', '--config', join(dir, 'forge.toml')], { encoding: 'utf8', timeout: 20_000 });
    const served = existsSync(join(dir, 'state', 'server.json'));
    rmSync(dir, { recursive: true, force: true });
    expect(r.status).not.toBe(0);
    expect(r.stderr.split(dir).join('DIR')).toContain('forge: DIR/forge.toml:5: forge will not serve plain HTTP on 0.0.0.0 without TLS: set [server] tls_cert and tls_key, or put it behind a TLS proxy and set [server] insecure_remote = true');
    expect(served).toBe(false);
  });

  it('with insecure_remote = true it serves, its links on the proxy\'s public_url', async () => {
    const forge = await startForge({ toml: '[server]\nhost = "0.0.0.0"\ninsecure_remote = true\npublic_url = "https://forge.example.com"\n' });
    try {
      expect(forge.info.viewer_url).toMatch(/^https:\/\/forge\.example\.com\/\?token=/);
      const r = await fetch(`http://127.0.0.1:${forge.info.port}/`);
      expect(r.status).toBe(200);
    } finally {
      await forge.stop();
    }
  });
});

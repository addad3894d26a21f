/** A certificate or key forge.toml names that would not serve stops the server before anything starts, naming the file and the key. */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function serveWith(toml: (dir: string) => string, files: Record<string, string> = {}): { status: number | null; stderr: string; served: boolean } {
  const dir = mkdtempSync(join(tmpdir(), 'forge-tls-files-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  writeFileSync(join(dir, 'forge.toml'), toml(dir));
  const r = spawnSync(process.execPath, ['dist/src/main/cli.js', 'serve', '--state', join(dir, 'state'), '--port', '0', '--config', join(dir, 'forge.toml')], { encoding: 'utf8', timeout: 20_000 });
  const served = existsSync(join(dir, 'state', 'server.json'));
  rmSync(dir, { recursive: true, force: true });
  return { status: r.status, stderr: r.stderr.split(dir).join('DIR'), served };
}

function openssl(args: string[]): boolean {
  return spawnSync('openssl', args).status === 0;
}

describe('the TLS files are checked before anything starts', () => {
  it('a missing certificate file, named relative to forge.toml, is named with its key and line', () => {
    const r = serveWith(() => '[server]\ntls_cert = "missing.pem"\ntls_key = "key.pem"\n', { 'key.pem': '' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('forge: DIR/forge.toml:2: key server.tls_cert: DIR/missing.pem cannot be read (ENOENT)');
    expect(r.served).toBe(false);
  });

  it('a file that is no certificate is named as such', () => {
    const r = serveWith(() => '[server]\ntls_cert = "cert.pem"\ntls_key = "key.pem"\n', { 'cert.pem': 'not a certificate\n', 'key.pem': 'nor a key\n' });
    expect(r.stderr).toContain('forge: DIR/forge.toml:2: key server.tls_cert: DIR/cert.pem is not a PEM certificate');
    expect(r.served).toBe(false);
  });

  it.skipIf(spawnSync('openssl', ['version']).status !== 0)('a key that is not the certificate\'s is named with the certificate it does not match', () => {
    const dir = mkdtempSync(join(tmpdir(), 'forge-tls-pair-'));
    const ok = openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-keyout', join(dir, 'k1.pem'), '-out', join(dir, 'cert.pem')])
      && openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-out', join(dir, 'other.pem')]);
    expect(ok).toBe(true);
    const r = serveWith(() => `[server]\ntls_cert = "${join(dir, 'cert.pem')}"\ntls_key = "${join(dir, 'other.pem')}"\n`);
    rmSync(dir, { recursive: true, force: true });
    expect(r.stderr).toContain(`key server.tls_key: ${join(dir, 'other.pem')} is not the key of the certificate ${join(dir, 'cert.pem')}`);
    expect(r.served).toBe(false);
  });
});

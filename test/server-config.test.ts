import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function serveWith(config: string): { status: number | null; stderr: string; stateDir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'forge-config-'));
  const file = join(dir, 'forge.toml');
  writeFileSync(file, config);
  const r = spawnSync(process.execPath, ['dist/src/main/cli.js', 'serve', '--state', join(dir, 'state'), '--port', '0', '--config', file], { encoding: 'utf8', timeout: 20_000 });
  return { status: r.status, stderr: r.stderr.replace(dir, 'DIR'), stateDir: join(dir, 'state') };
}

describe('a bad forge.toml stops the server before anything starts', () => {
  it('an unknown key names the file, line and key, and no server.json is written', () => {
    const r = serveWith('[org]\nname = "acme"\n\n[browser]\nidle_minutes = 5\nheadless = true\n');
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('DIR/forge.toml:6: key browser.headless is not a forge.toml key');
    expect(existsSync(join(r.stateDir, 'server.json'))).toBe(false);
    rmSync(join(r.stateDir, '..'), { recursive: true, force: true });
  });

  it('malformed TOML names the file and line', () => {
    const r = serveWith('[org]\nname = "acme\n');
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/DIR\/forge\.toml:2: /);
    rmSync(join(r.stateDir, '..'), { recursive: true, force: true });
  });
});

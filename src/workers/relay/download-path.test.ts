import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DownloadRefused, keptDownloadPath } from './download-path.js';

let dir: string;
let root: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'forge-download-path-'));
  root = join(dir, 'profiles');
  mkdirSync(join(root, 'acme', 'shop-downloads'), { recursive: true });
  writeFileSync(join(root, 'acme', 'shop-downloads', 'dl-0a1b2c3d-report.csv'), 'a,b\n');
  writeFileSync(join(dir, 'secret.txt'), 'not for a link');
  // A downloads folder that leads out of the profiles folder, and a kept name that is a link out.
  mkdirSync(join(root, 'evil'), { recursive: true });
  symlinkSync(dir, join(root, 'evil', 'shop-downloads'));
  symlinkSync(join(dir, 'secret.txt'), join(root, 'acme', 'shop-downloads', 'dl-00000000-secret.txt'));
});

afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

async function refusal(file: string): Promise<DownloadRefused> {
  const e = await keptDownloadPath(root, file, 'x').then(() => undefined, (err: unknown) => err);
  expect(e).toBeInstanceOf(DownloadRefused);
  return e as DownloadRefused;
}

describe('a download link reads one kept download under the profiles folder and nothing else', () => {
  it('a kept download\'s place gives its file', async () => {
    expect(await keptDownloadPath(root, 'acme/shop-downloads/dl-0a1b2c3d-report.csv', 'report.csv')).toBe(join(root, 'acme', 'shop-downloads', 'dl-0a1b2c3d-report.csv'));
  });

  it('a place that climbs out, is absolute, or is not shaped as a kept download is refused in words', async () => {
    for (const file of [
      '../secret.txt', 'acme/../../secret.txt', 'acme/shop-downloads/../../../secret.txt', '/etc/passwd',
      'acme/shop/Cookies', 'acme/shop-downloads/report.csv', 'acme/shop-downloads/dl-0a1b2c3d-../x', '../../etc/shop-downloads/dl-0a1b2c3d-passwd',
      'acme/shop-downloads/dl-0a1b2c3d-a/b', '', 'acme//shop-downloads/dl-0a1b2c3d-x',
    ]) {
      const r = await refusal(file);
      expect(r.status, file).toBe('403 Forbidden');
      expect(r.message, file).toBe('this download link does not name a download the server kept');
    }
  });

  it('a downloads folder or a kept name that is a symbolic link out of the profiles folder is refused', async () => {
    expect((await refusal('evil/shop-downloads/dl-0a1b2c3d-secret.txt')).status).toBe('403 Forbidden');
    expect((await refusal('acme/shop-downloads/dl-00000000-secret.txt')).status).toBe('403 Forbidden');
  });

  it('a kept download that is gone is said gone by its name', async () => {
    const e = await keptDownloadPath(root, 'acme/shop-downloads/dl-ffffffff-old.csv', 'old.csv').catch((err: DownloadRefused) => err);
    expect(e).toMatchObject({ status: '410 Gone', message: 'old.csv is no longer kept on the server' });
    const noFolder = await keptDownloadPath(root, 'acme/gone-downloads/dl-ffffffff-old.csv', 'old.csv').catch((err: DownloadRefused) => err);
    expect(noFolder).toMatchObject({ status: '410 Gone' });
  });
});

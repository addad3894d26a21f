/** The web client's files, read once at start and served from memory. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, extname } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.webp': 'image/webp',
};

export interface StaticFile { body: Buffer; type: string }

export function loadStatic(dir: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  const walk = (d: string, prefix: string): void => {
    let names: string[];
    try { names = readdirSync(d); } catch { return; }
    for (const name of names) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full, `${prefix}${name}/`);
      else files.set(`/${prefix}${name}`, { body: readFileSync(full), type: TYPES[extname(name)] ?? 'application/octet-stream' });
    }
  };
  walk(dir, '');
  return files;
}

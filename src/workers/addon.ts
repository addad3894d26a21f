/**
 * Loads one of forge's native addons (native/<name>, linked as an npm package). A worker that
 * cannot load one falls back to its JavaScript or process path and says why.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export function loadAddon<T>(pkg: string): { addon: T | null; why: string } {
  try {
    return { addon: require(pkg) as T, why: '' };
  } catch (e) {
    return { addon: null, why: (e as Error).message };
  }
}

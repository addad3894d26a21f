/**
 * What a download link may read: one file a profile kept of a page's download, under the server's
 * own profiles folder, and nothing else. A link's signature says the server made it; this says
 * what any link, signed or not, can ever reach: a regular file named as the browser surface names
 * kept downloads (`<org>/<profile>-downloads/dl-<8 hex>-<name>`), whose folder really lies inside
 * the profiles folder (no `..`, no absolute path, no symbolic link on the way out).
 */
import { lstat, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, sep } from 'node:path';

/** The shape of a kept download's place under the profiles folder (see main/browser/downloads.ts). */
const KEPT_FILE_RE = /^([^/\\]+)\/([^/\\]+)-downloads\/dl-[0-9a-f]{8}-[^/\\]+$/;

/** Why a link's file is not served, in the person's words, with its HTTP status. */
export class DownloadRefused extends Error {
  constructor(readonly status: string, message: string) { super(message); }
}

const NOT_A_DOWNLOAD = (): DownloadRefused => new DownloadRefused('403 Forbidden', 'this download link does not name a download the server kept');

/** The org and profile of a kept download's place, refused with DownloadRefused (403) when `file` is shaped as anything else. */
export function keptPlace(file: string): RegExpExecArray {
  const m = KEPT_FILE_RE.exec(file);
  if (!m || isAbsolute(file) || file.split('/').some((part) => part === '' || part === '.' || part === '..')) throw NOT_A_DOWNLOAD();
  return m;
}

/**
 * The path of the kept download `file` names under `profilesRoot`, once it is checked to be one;
 * refused with DownloadRefused otherwise (403 for a link naming anything else, 410 for a kept
 * download that is gone).
 */
export async function keptDownloadPath(profilesRoot: string, file: string, name: string): Promise<string> {
  const m = keptPlace(file);
  const path = join(profilesRoot, file);
  if (!path.startsWith(profilesRoot + sep)) throw NOT_A_DOWNLOAD();
  let root: string;
  let folder: string;
  try {
    [root, folder] = await Promise.all([realpath(profilesRoot), realpath(dirname(path))]);
  } catch {
    throw new DownloadRefused('410 Gone', `${name} is no longer kept on the server`);
  }
  // The downloads folder itself may not lead out of the profiles folder (a link placed there).
  if (folder !== join(root, m[1]!, `${m[2]!}-downloads`)) throw NOT_A_DOWNLOAD();
  const s = await lstat(path).catch(() => null);
  if (!s) throw new DownloadRefused('410 Gone', `${name} is no longer kept on the server`);
  if (!s.isFile()) throw NOT_A_DOWNLOAD();
  return path;
}

/**
 * GET /download?k=<signed link>: the bytes of a page's finished download, for the client whose
 * controller was offered it. The link names one kept download (see download-path.ts for what it
 * may reach) and is signed by the node that kept it (see links.ts), so the relay reads it straight from disk;
 * on a cluster, a download another node kept is read through that node (see
 * main/cluster/download-bridge.ts). A file the backlog dropped is gone in words.
 */
import { open, stat } from 'node:fs/promises';
import { DOWNLOAD_MAX_BYTES } from '../../shared/limits.js';
import { DownloadRefused, keptDownloadPath, keptPlace } from './download-path.js';
import { verifyDownload, type DownloadClaims, type LinkVerifier } from './links.js';
import type { HttpRequest, HttpResponse } from './uws.js';

/** What the relay's download door knows. */
export interface DownloadDoor {
  /** The public keys links are checked with: the keeping node's, whose own key signed its link (see link-keys.ts). */
  keys: LinkVerifier;
  /** This server's profiles folder: kept downloads live in it and nowhere else. */
  profilesRoot: string;
  /** This node's name on a cluster. */
  node?: string;
  /** Reads the download another node kept, through that node (a cluster's); absent on a lone server. */
  remote?: (owner: string, token: string, name: string) => Promise<Uint8Array>;
  /** A client was handed the whole file at `path`. */
  fetched: (path: string) => void;
}

/** The header value that makes a browser save the bytes under the page's own name. */
function disposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

const INVALID = (): DownloadRefused => new DownloadRefused('403 Forbidden', 'this download link is not valid or has expired');
const TOO_BIG = (): DownloadRefused => new DownloadRefused('413 Payload Too Large', `the download is past the ${DOWNLOAD_MAX_BYTES / (1024 * 1024)} MiB a client is handed`);

/** The claims of a link this node serves from its own disk: valid, and kept here (not by another node). */
export function ownClaims(door: DownloadDoor, token: string): DownloadClaims {
  const claims = verifyDownload(door.keys, token);
  if (!claims) throw INVALID();
  if ((claims.node ?? undefined) !== door.node) {
    throw new DownloadRefused('410 Gone', `${claims.name} was kept by ${claims.node ? `node ${claims.node}` : 'a server'} this one cannot read it from`);
  }
  return claims;
}

/** Up to `max` bytes of the kept download a link names, from byte `at`, with its whole size and path. */
export async function readOwnDownload(door: DownloadDoor, claims: DownloadClaims, at = 0, max = DOWNLOAD_MAX_BYTES): Promise<{ path: string; size: number; data: Uint8Array }> {
  const path = await keptDownloadPath(door.profilesRoot, claims.file, claims.name);
  const gone = (): DownloadRefused => new DownloadRefused('410 Gone', `${claims.name} is no longer kept on the server`);
  const s = await stat(path).catch(() => { throw gone(); });
  if (s.size > DOWNLOAD_MAX_BYTES) throw TOO_BIG();
  const fh = await open(path, 'r').catch(() => { throw gone(); });
  try {
    const want = Math.max(0, Math.min(max, s.size - at));
    const data = new Uint8Array(want);
    let got = 0;
    while (got < want) {
      const { bytesRead } = await fh.read(data, got, want - got, at + got);
      if (bytesRead === 0) throw gone();
      got += bytesRead;
    }
    return { path, size: s.size, data };
  } finally {
    await fh.close();
  }
}

export function serveDownload(res: HttpResponse, req: HttpRequest, door: DownloadDoor): void {
  const token = req.getQuery('k') ?? '';
  let aborted = false;
  res.onAborted(() => { aborted = true; });
  const answer = (status: string, body: string): void => {
    if (aborted) return;
    res.cork(() => res.writeStatus(status).writeHeader('content-type', 'text/plain; charset=utf-8').end(body));
  };
  const claims = verifyDownload(door.keys, token);
  if (!claims) { answer('403 Forbidden', 'this download link is not valid or has expired'); return; }
  void (async () => {
    try {
      // What the link names is looked at first, on whichever node: anything but a kept download is refused here.
      keptPlace(claims.file);
      let body: Uint8Array;
      let path: string | undefined;
      if (claims.node !== undefined && claims.node !== door.node) {
        if (!door.remote) throw new DownloadRefused('410 Gone', `${claims.name} was kept by node ${claims.node}, which this server does not reach`);
        body = await door.remote(claims.node, token, claims.name);
      } else {
        ({ path, data: body } = await readOwnDownload(door, ownClaims(door, token)));
      }
      if (aborted) return;
      res.cork(() => {
        res.writeStatus('200 OK')
          .writeHeader('content-type', 'application/octet-stream')
          .writeHeader('content-disposition', disposition(claims.name))
          .writeHeader('cache-control', 'no-store')
          .end(body);
      });
      if (path) door.fetched(path);
    } catch (e) {
      if (e instanceof DownloadRefused) answer(e.status, e.message);
      else answer('410 Gone', `${claims.name} is no longer kept on the server`);
    }
  })();
}

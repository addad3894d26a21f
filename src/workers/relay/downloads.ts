/**
 * GET /download?k=<signed link>: the bytes of a page's finished download, for the client whose
 * controller was offered it. The link names the saved file and is signed by the server (see
 * links.ts), so the relay reads it straight from disk; a file the backlog dropped is gone in words.
 */
import { readFile, stat } from 'node:fs/promises';
import { DOWNLOAD_MAX_BYTES } from '../../shared/limits.js';
import { verifyDownload } from './links.js';
import type { HttpRequest, HttpResponse } from './uws.js';

/** The header value that makes a browser save the bytes under the page's own name. */
function disposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/** `fetched` runs once a client was handed the whole file. */
export function serveDownload(res: HttpResponse, req: HttpRequest, secret: string, fetched: (path: string) => void): void {
  const claims = verifyDownload(secret, req.getQuery('k') ?? '');
  let aborted = false;
  res.onAborted(() => { aborted = true; });
  const answer = (status: string, body: string): void => {
    if (aborted) return;
    res.cork(() => res.writeStatus(status).writeHeader('content-type', 'text/plain; charset=utf-8').end(body));
  };
  if (!claims) { answer('403 Forbidden', 'this download link is not valid or has expired'); return; }
  void (async () => {
    try {
      const s = await stat(claims.path);
      if (s.size > DOWNLOAD_MAX_BYTES) { answer('413 Payload Too Large', `the download is past the ${DOWNLOAD_MAX_BYTES / (1024 * 1024)} MiB a client is handed`); return; }
      const body = await readFile(claims.path);
      if (aborted) return;
      res.cork(() => {
        res.writeStatus('200 OK')
          .writeHeader('content-type', 'application/octet-stream')
          .writeHeader('content-disposition', disposition(claims.name))
          .writeHeader('cache-control', 'no-store')
          .end(body);
      });
      fetched(claims.path);
    } catch {
      answer('410 Gone', `${claims.name} is no longer kept on the server`);
    }
  })();
}

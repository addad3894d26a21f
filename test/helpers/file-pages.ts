/**
 * Test pages for file choosers and downloads: an upload form that shows the picked files, and a
 * download page whose links answer with attachments of a given size and deterministic bytes.
 */
import { createServer, type Server } from 'node:http';
import { connectAgent, startForge, type Agent, type RunningServer } from './server.js';

export interface FilePages { origin: string; close: () => Promise<void> }

/** The bytes /dl/<name>?bytes=N answers with: a repeating line, so content can be asserted. */
export function downloadBytes(name: string, n: number): Buffer {
  const line = Buffer.from(`${name},forge\n`);
  const out = Buffer.alloc(n);
  for (let i = 0; i < n; i += line.length) line.copy(out, i, 0, Math.min(line.length, n - i));
  return out;
}

/** A form whose file input shows what it was given (or that its picker was cancelled). */
export const UPLOAD_PAGE = `<title>Upload</title><style>body{margin:0;font:24px sans-serif}
#f{position:fixed;left:0;top:0;width:50vw;height:40vh;font-size:28px}
</style>
<input type="file" id="f" multiple>
<input type="file" id="one">
<p id="names" style="position:fixed;top:60vh;left:20px">none</p>
<script>
const f = document.getElementById('f');
const show = (el) => { const n = document.getElementById('names'); n.textContent = [...el.files].map((x) => x.name + ':' + x.size).join(',') || 'empty'; document.title = 'files ' + n.textContent; };
f.addEventListener('change', () => show(f));
f.addEventListener('cancel', () => { document.title = 'cancelled'; });
document.getElementById('one').addEventListener('change', (e) => show(e.target));
</script>`;

/** A download larger than one piece between nodes (512 KiB) and not a multiple of it: three pieces, the last short. */
export const MULTI_PIECE_BYTES = 1_300_000;

export const DOWNLOAD_PAGE = `<title>Downloads</title><style>body{margin:0;font:24px sans-serif} a{display:block;margin:12px}</style>
<a id="small" href="/dl/report.csv?bytes=12345">report.csv</a>
<a id="big" href="/dl/huge.bin?bytes=${33 * 1024 * 1024}">huge.bin</a>
${[1, 2, 3, 4, 5, 6].map((i) => `<a id="file${i}" href="/dl/file${i}.txt?bytes=${100 + i}">file${i}.txt</a>`).join('')}
<a id="pieces" href="/dl/archive.bin?bytes=${MULTI_PIECE_BYTES}">archive.bin</a>`;

export async function serveFilePages(): Promise<FilePages> {
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/upload') { res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(UPLOAD_PAGE); return; }
    if (url.pathname === '/downloads') { res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(DOWNLOAD_PAGE); return; }
    const dl = /^\/dl\/([\w.-]+)$/.exec(url.pathname);
    if (dl) {
      const body = downloadBytes(dl[1]!, Number(url.searchParams.get('bytes') ?? 10));
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length, 'content-disposition': `attachment; filename="${dl[1]}"` }).end(body);
      return;
    }
    res.writeHead(404).end('not found');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return { origin, close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }) };
}

/** A forge server, the file pages, and an agent of `seat` whose tab shows `path` of them: the file tests' set-up. */
export interface FileRig { forge: RunningServer; pages: FilePages; a: Agent; stop(): Promise<void> }

export async function startFileRig(seat: string, path: '/upload' | '/downloads'): Promise<FileRig> {
  const forge = await startForge();
  const pages = await serveFilePages();
  const a = await connectAgent(forge, seat);
  await a.call('browser_navigate', { url: `${pages.origin}${path}` });
  return {
    forge, pages, a,
    stop: async () => { await a.close(); await forge.stop(); await pages.close(); },
  };
}


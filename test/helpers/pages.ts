/** Local web pages for tests: each server is its own origin (127.0.0.1:P and localhost:Q differ). */
import { createServer, type Server } from 'node:http';

export interface PageServer { url: string; origin: string; close: () => Promise<void> }

export async function servePages(pages: Record<string, string | ((origin: string) => string)>, host = '127.0.0.1'): Promise<PageServer> {
  let origin = '';
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const page = pages[path];
    if (page === undefined) { res.writeHead(404).end('not found'); return; }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(typeof page === 'function' ? page(origin) : page);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  origin = `http://${host}:${port}`;
  return { url: `${origin}/`, origin, close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }) };
}

/** Local pages for the browser tool tests: any status, any content type, and a resource that never arrives. */
import { createServer, type Server, type ServerResponse } from 'node:http';

export interface Route { status?: number; type?: string; body: string | Buffer; delayMs?: number }
/** `hang`: the response never comes (the socket stays open until the server closes). */
export type Served = string | Route | 'hang' | ((body: string, url: URL) => Route | string);

export interface ToolPages { url: string; origin: string; hits: string[]; close: () => Promise<void> }

export async function serveToolPages(routes: Record<string, Served>): Promise<ToolPages> {
  const hanging = new Set<ServerResponse>();
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    hits.push(url.pathname);
    let body = '';
    req.on('data', (d: Buffer) => { body += d.toString(); });
    req.on('end', () => {
      let r = routes[url.pathname];
      if (r === undefined) { res.writeHead(404, { 'content-type': 'text/html' }).end('<html><head><title>Not here</title></head><body><h1>No such page</h1></body></html>'); return; }
      if (r === 'hang') { hanging.add(res); return; }
      if (typeof r === 'function') r = r(body, url);
      const route: Route = typeof r === 'string' ? { body: r } : r;
      const send = (): void => { res.writeHead(route.status ?? 200, { 'content-type': route.type ?? 'text/html; charset=utf-8' }).end(route.body); };
      if (route.delayMs) setTimeout(send, route.delayMs); else send();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url: `${origin}/`, origin, hits,
    close: () => new Promise((r) => { for (const h of hanging) h.destroy(); server.closeAllConnections(); server.close(() => r()); }),
  };
}

/** The ref the snapshot line `<role> "<name>"` carries. */
export function refOf(snapshot: string, role: string, name: string): string {
  const m = new RegExp(`${role} "${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"[^\\n]*\\[ref=((?:f\\d+)?e\\d+)\\]`).exec(snapshot);
  if (!m) throw new Error(`no ${role} "${name}" in the snapshot:\n${snapshot}`);
  return m[1];
}

/**
 * Forwards an HTTP request from uWS to the main thread's loopback MCP endpoint and streams
 * the answer back (Streamable HTTP answers may be an SSE stream that stays open).
 */
import { request } from 'node:http';
import type { HttpRequest, HttpResponse } from './uws.js';

/** Largest MCP request body forwarded, bytes: a tool call's arguments, never a file. */
export const MCP_BODY_MAX_BYTES = 4 * 1024 * 1024;

const FORWARDED = ['authorization', 'content-type', 'accept', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id'];

export function proxyToMcp(res: HttpResponse, req: HttpRequest, port: number): void {
  const method = req.getMethod().toUpperCase();
  const url = req.getUrl() + (req.getQuery() ? `?${req.getQuery()}` : '');
  const headers: Record<string, string> = {};
  for (const h of FORWARDED) {
    const v = req.getHeader(h);
    if (v) headers[h] = v;
  }
  let aborted = false;
  let upstream: ReturnType<typeof request> | undefined;
  res.onAborted(() => {
    aborted = true;
    upstream?.destroy();
  });
  const chunks: Buffer[] = [];
  let size = 0;
  res.onData((ab, isLast) => {
    if (aborted) return;
    size += ab.byteLength;
    if (size > MCP_BODY_MAX_BYTES) {
      aborted = true;
      res.cork(() => res.writeStatus('413 Payload Too Large').end('an MCP request body is limited to 4 MiB'));
      return;
    }
    chunks.push(Buffer.from(ab.slice(0)));
    if (!isLast) return;
    const body = Buffer.concat(chunks);
    if (body.length) headers['content-length'] = String(body.length);
    upstream = request({ host: '127.0.0.1', port, method, path: url, headers }, (up) => {
      if (aborted) { up.destroy(); return; }
      res.cork(() => {
        res.writeStatus(`${up.statusCode ?? 502} ${up.statusMessage ?? ''}`);
        for (const [k, v] of Object.entries(up.headers)) {
          if (v === undefined || k === 'content-length' || k === 'transfer-encoding' || k === 'connection' || k === 'keep-alive') continue;
          for (const one of Array.isArray(v) ? v : [v]) res.writeHeader(k, one);
        }
      });
      up.on('data', (chunk: Buffer) => {
        if (!aborted) res.cork(() => res.write(chunk));
      });
      up.on('end', () => {
        if (!aborted) { aborted = true; res.cork(() => res.end()); }
      });
      up.on('error', () => {
        if (!aborted) { aborted = true; res.cork(() => res.end()); }
      });
    });
    upstream.on('error', (e) => {
      if (aborted) return;
      aborted = true;
      res.cork(() => res.writeStatus('502 Bad Gateway').end(`the MCP endpoint did not answer: ${e.message}`));
    });
    upstream.end(body);
  });
}

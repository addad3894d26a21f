/** A bare CDP client over a real socket, for the raw CDP door's tests: commands by id, events, and how the socket ended. */
import WebSocket from 'ws';

/** What the browser sends as a CDP result or event's params: any shape, read by the tests as the protocol documents it. */
// biome-ignore lint/suspicious/noExplicitAny: CDP answers are the browser's own JSON, of every shape
type Json = any;

export interface CdpAnswer { id: number; result?: Record<string, Json>; error?: { code: number; message: string }; sessionId?: string }
export interface CdpSocket {
  ws: WebSocket;
  events: Array<{ method: string; params: Json; sessionId?: string }>;
  /** Sends a command; resolves with its answer (result or error). */
  send(method: string, params?: Record<string, unknown>, sessionId?: string): Promise<CdpAnswer>;
  /** Sends a command without waiting; its id. */
  post(method: string, params?: Record<string, unknown>): number;
  answer(id: number): Promise<CdpAnswer>;
  closed: Promise<{ code: number; reason: string }>;
  close(): Promise<void>;
}

/** Opens a CDP socket; rejects with the refusal's status and body when the door answers before the upgrade. */
export async function openCdp(url: string, headers: Record<string, string> = {}): Promise<CdpSocket> {
  const ws = new WebSocket(url, { headers, maxPayload: 256 * 1024 * 1024 });
  const events: CdpSocket['events'] = [];
  const answers = new Map<number, CdpAnswer>();
  const waiting = new Map<number, (a: CdpAnswer) => void>();
  let nextId = 1;
  ws.on('message', (data) => {
    const m = JSON.parse(String(data));
    if (typeof m.id === 'number') {
      const w = waiting.get(m.id);
      if (w) { waiting.delete(m.id); w(m); } else answers.set(m.id, m);
    } else events.push(m);
  });
  const closed = new Promise<{ code: number; reason: string }>((r) => ws.on('close', (code, reason) => r({ code, reason: String(reason) })));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => { body += d.toString(); });
      res.on('end', () => reject(Object.assign(new Error(`refused ${res.statusCode}: ${body}`), { status: res.statusCode, body })));
    });
    ws.once('error', reject);
  });
  const answer = (id: number): Promise<CdpAnswer> => {
    const a = answers.get(id);
    if (a) { answers.delete(id); return Promise.resolve(a); }
    return new Promise((r) => waiting.set(id, r));
  };
  const post = (method: string, params: Record<string, unknown> = {}, sessionId?: string): number => {
    const id = nextId++;
    ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    return id;
  };
  return {
    ws, events, post, answer, closed,
    send: (method, params, sessionId) => answer(post(method, params, sessionId)),
    close: async () => { if (ws.readyState !== WebSocket.CLOSED) { ws.close(); await closed; } },
  };
}

/** The CDP door's address on a running server: `/cdp/<page id>` or the seat's `/cdp`. */
export function cdpUrl(port: number, path: string, query: Record<string, string>): string {
  return `ws://127.0.0.1:${port}${path}?${new URLSearchParams(query).toString()}`;
}

/** The page id of an agent's tab `n` (its current one when absent), read from its browser_tabs list. */
export function pageIdIn(list: string, n?: number): string {
  const line = list.split('\n').find((l) => (n === undefined ? l.includes('(current)') : l.startsWith(`- ${n}:`)));
  const m = line ? /page (p-[0-9a-f]{8})/.exec(line) : null;
  if (!m) throw new Error(`no page id for tab ${n ?? '(current)'} in:\n${list}`);
  return m[1]!;
}

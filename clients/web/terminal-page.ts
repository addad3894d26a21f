/**
 * A page that raises one seat's terminal: `/terminal.html?token=…&seat=ORG/PROJECT/LABEL`.
 * It opens the viewer socket and hands the surface a connection; the full client's strip does
 * the same through the same door.
 */
import { decodeControl, encodeControl } from '../../src/shared/protocol.js';
import { raiseTerminal, type TerminalConn } from './terminal/door.js';

const params = new URLSearchParams(location.search);
const token = params.get('token') ?? '';
const seat = params.get('seat') ?? 'default/project/lead';
const root = document.getElementById('app')!;
const note = document.createElement('p');
note.setAttribute('role', 'status');
root.append(note);

const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws?token=${encodeURIComponent(token)}`);
ws.binaryType = 'arraybuffer';
const msgCbs = new Set<(m: Record<string, unknown> & { t: string }) => void>();
const binCbs = new Set<(b: Uint8Array) => void>();
ws.addEventListener('message', (e) => {
  const bytes = new Uint8Array(e.data as ArrayBuffer);
  if (bytes[0] === 4) { for (const cb of binCbs) cb(bytes); return; }
  const d = decodeControl(bytes);
  if (d.ok) for (const cb of msgCbs) cb(d.msg as Record<string, unknown> & { t: string });
});
ws.addEventListener('close', (e) => { note.textContent = `the connection closed (${e.code} ${e.reason})`; });

const conn: TerminalConn = {
  send: (m) => { if (ws.readyState === WebSocket.OPEN) ws.send(encodeControl(m as never)); },
  onMessage: (cb) => { msgCbs.add(cb); return () => msgCbs.delete(cb); },
  onBinary: (cb) => { binCbs.add(cb); return () => binCbs.delete(cb); },
};

ws.addEventListener('open', () => {
  void raiseTerminal(root, conn, {
    seat,
    renderer: params.get('renderer') === 'webgl' ? 'webgl' : 'dom',
    onLower: () => { note.textContent = 'the terminal is lowered; reload to raise it again'; },
    onFail: (m) => { note.textContent = m; },
  });
});

/**
 * A page that raises one seat's terminal: `/terminal.html?token=…&seat=ORG/PROJECT/LABEL`.
 * It opens the viewer socket (the full client's, so it reconnects by itself) and hands the
 * surface a connection once it first opens; the surface attaches again after every drop. The
 * full client's strip does the same through the same door.
 */
import { FRAME_KIND_TERMINAL } from '../../src/shared/protocol.js';
import { Connection, LINK_WORDS, surfaceConn } from './connection.js';
import { raiseTerminal } from './terminal/door.js';

const params = new URLSearchParams(location.search);
const token = params.get('token') ?? '';
const seat = params.get('seat') ?? 'default/project/lead';
const root = document.getElementById('app')!;
const note = document.createElement('p');
note.setAttribute('role', 'status');
root.append(note);

const conn = Connection.forPage(token);
let raised = false;
conn.onState((st) => {
  // Once raised, the surface's own state line speaks of the connection.
  if (!raised) note.textContent = st === 'open' ? '' : st === 'ended' ? conn.endedReason : LINK_WORDS[st];
  if (st !== 'open' || raised) return;
  raised = true;
  void raiseTerminal(root, surfaceConn(conn, FRAME_KIND_TERMINAL), {
    seat,
    renderer: params.get('renderer') === 'webgl' ? 'webgl' : 'dom',
    onLower: () => { note.textContent = 'the terminal is lowered; reload to raise it again'; },
    onFail: (m) => { note.textContent = m; },
  });
});
conn.start();

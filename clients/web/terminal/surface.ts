/**
 * The terminal surface: xterm.js drawing a seat terminal the server owns. The attach carries the
 * fitted size; the server answers with a repaint (a keyframe) and then the shell's own bytes.
 * This module is its own chunk, imported when a terminal is first raised.
 */
import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import { Unicode11Addon } from '@xterm/addon-unicode11';
import { SearchAddon } from '@xterm/addon-search';
import { ClipboardAddon } from '@xterm/addon-clipboard';
import { ImageAddon } from '@xterm/addon-image';
import { FRAME_FLAG_KEYFRAME, type ClientMessage, type ServerMessage } from '../../../src/shared/protocol.js';
import { TERM_INPUT_MAX_CHARS, pasteTooLong } from '../../../src/shared/limits.js';
import { TERM_ACK_EVERY_BYTES, TERM_STATE, readTermHeader } from '../../../src/shared/terminal.js';
import { boundRepeats } from '../../../src/shared/term-repeats.js';
import { mendEraseAbove } from '../../../src/shared/term-erase-above.js';
import { dropLinksOnReset } from '../../../src/shared/term-link-reset.js';
import { guardHandlers } from '../../../src/shared/term-handler-guard.js';
import { terminalTheme } from './theme.js';
import { THEME_CHANGED } from '../theme.js';
import { keyBar } from './keybar.js';
import { SURFACE_CSS } from './style.js';
import { isPaneChord } from '../keys.js';

/** Output silence after which the client acknowledges what it drew, ms. */
const ACK_IDLE_MS = 40;
/** Shortest spell between two repaints asked because a sequence could not be drawn, ms: a program that keeps sending one costs a repaint a second, not one per sequence. */
const UNDRAWN_REPAINT_MS = 1000;

export interface TerminalConn {
  send(msg: ClientMessage): void;
  /** Subscribes to control messages; returns the unsubscribe. */
  onMessage(cb: (msg: ServerMessage) => void): () => void;
  /** Subscribes to binary frames; returns the unsubscribe. */
  onBinary(cb: (bytes: Uint8Array) => void): () => void;
  /** Subscribes to the socket's state, where it reconnects (it tells the current state at once); returns the unsubscribe. */
  onState?(cb: (state: 'connecting' | 'open' | 'down' | 'ended') => void): () => void;
  /** Whether this page's credential may take control; absent: it may. */
  mayControl?(): boolean;
}

export interface TerminalOptions {
  seat: string;
  /** Frames that landed while this chunk loaded, in order. */
  held?: Uint8Array[];
  /** The hold overflowed: ask for a fresh repaint rather than drawing a fragment. */
  heldOverflow?: boolean;
  /** 'webgl' tries the WebGL renderer and falls back to the DOM renderer. */
  renderer?: 'dom' | 'webgl';
  /** Called when the person goes back to chat (or Back lowers the surface). */
  onLower?: () => void;
  /**
   * A bar that is not the surface's own (the client's takeover): the title goes to `setTitle`, the
   * state line, hand-off answers and take control into `actions`, and the owner of that bar keeps
   * back to chat and the history entry; it closes the surface when it lowers.
   */
  bar?: { setTitle(title: string): void; actions: HTMLElement };
  /** Under another bar: lowers the surface the way that bar's back to chat does. */
  leave?: () => void;
  /** Under another bar: the pane chord (Ctrl/Cmd+Alt+Up/Down) hands the keys to that bar, never to the shell. */
  toBar?: () => void;
}

export interface TerminalSurfaceHandle {
  readonly term: Terminal;
  close(): void;
}

export function openTerminalSurface(root: HTMLElement, conn: TerminalConn, opts: TerminalOptions): TerminalSurfaceHandle {
  /** A watch-only token's page shows take control greyed, with why, rather than a press the server refuses. */
  const mayControl = (): boolean => conn.mayControl?.() ?? true;
  installStyle();
  const el = document.createElement('div');
  el.className = 'term-surface';
  el.setAttribute('role', 'dialog');
  el.setAttribute('aria-modal', 'true');
  el.setAttribute('aria-label', 'terminal');
  el.innerHTML = `
    <div class="term-bar">
      <button type="button" class="term-back">back to chat</button>
      <span class="term-title">terminal</span>
      <span class="term-state" role="status" aria-live="polite">${TERM_STATE.opening}…</span>
      <span class="term-handoff" hidden><span class="term-reason"></span><span class="term-hidden" hidden> · typing is hidden</span>
        <button type="button" class="term-done">Done</button><button type="button" class="term-notnow">Not now</button></span>
      <button type="button" class="term-control" disabled>take control</button>
    </div>
    <div class="term-screen"></div>`;
  root.append(el);
  const q = <T extends HTMLElement>(sel: string): T => (el.querySelector(sel) ?? opts.bar?.actions.querySelector(sel)) as T;
  const titleEl = q<HTMLElement>('.term-title');
  if (opts.bar) {
    // Under the takeover's bar: its title, its back to chat; the terminal's controls go beside them.
    el.classList.add('term-embedded');
    el.removeAttribute('role');
    el.removeAttribute('aria-modal');
    const controls = q<HTMLElement>('.term-bar');
    controls.classList.add('term-controls');
    q<HTMLElement>('.term-back').remove();
    titleEl.remove();
    opts.bar.actions.append(controls);
  }
  const setTitle = (t: string): void => { if (opts.bar) opts.bar.setTitle(t); else titleEl.textContent = t; };
  const stateEl = q<HTMLElement>('.term-state');
  const controlB = q<HTMLButtonElement>('.term-control');
  const handEl = q<HTMLElement>('.term-handoff');

  const term = new Terminal({
    screenReaderMode: true, allowProposedApi: true, scrollback: 5000, cursorBlink: true,
    fontFamily: 'ui-monospace, "DejaVu Sans Mono", "Liberation Mono", monospace', fontSize: 14,
    theme: terminalTheme(el), disableStdin: true,
  });
  // A program's huge scroll or repeat count must not freeze the page drawing it.
  boundRepeats(term);
  // An erase above from the bottom-right corner must not stop the page drawing what follows.
  mendEraseAbove(term);
  // A reset after hyperlinks must not keep the old screen, and its scrollback, alive for good.
  dropLinksOnReset(term);
  const fit = new FitAddon();
  term.loadAddon(fit);
  const unicode = new Unicode11Addon();
  term.loadAddon(unicode);
  term.unicode.activeVersion = '11';
  term.loadAddon(new SearchAddon());
  term.loadAddon(new ClipboardAddon());
  try { term.loadAddon(new ImageAddon()); } catch { /* images are a nicety; text never depends on them */ }
  term.open(q<HTMLElement>('.term-screen'));
  // Last, so the addons' handlers are guarded too. A sequence this page's xterm.js cannot take is
  // skipped, and the screen is asked again from the server's model (which skipped it as well).
  let undrawnAsked = 0;
  guardHandlers(term, () => {
    const now = performance.now();
    if (!id || now - undrawnAsked < UNDRAWN_REPAINT_MS) return;
    undrawnAsked = now;
    queueMicrotask(() => { if (id) conn.send({ t: 'term_repaint', term: id }); });
  });
  // The palette may change under a raised terminal (the person's preference, the server's theme).
  const retheme = (): void => { term.options.theme = terminalTheme(el); };
  window.addEventListener(THEME_CHANGED, retheme);
  if (opts.renderer === 'webgl') void tryWebgl(term);

  let id = 0;
  /** What the title names besides the directory, from the terminal's term_view. */
  let view: { number: number; shell: string } | undefined;
  let role: 'holder' | 'watcher' = 'watcher';
  // Take control was pressed and the server has not answered yet. Keys typed meanwhile go out
  // behind the take on the same socket, so the server reads them as the new holder's; a person
  // who presses take control and types at once loses nothing to the round trip.
  let taking = false;
  let expectedSeq = -1;
  let pendingAck = 0;
  let ackTimer = 0;
  let closed = false;
  let lastState = '';

  const setState = (text: string): void => {
    if (text !== lastState) { lastState = text; stateEl.textContent = text; }
  };

  const ack = (): void => {
    if (pendingAck && id) conn.send({ t: 'term_ack', term: id, bytes: pendingAck });
    pendingAck = 0;
  };
  const drew = (n: number): void => {
    pendingAck += n;
    clearTimeout(ackTimer);
    if (pendingAck >= TERM_ACK_EVERY_BYTES) ack();
    else ackTimer = window.setTimeout(ack, ACK_IDLE_MS);
  };

  const onFrame = (bytes: Uint8Array): void => {
    if (bytes[0] !== 4 || bytes.byteLength < 12) return;
    const h = readTermHeader(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    if (!id || h.id !== id) return;
    const payload = bytes.subarray(h.hdrlen);
    if (h.flags & FRAME_FLAG_KEYFRAME) {
      term.reset();
      expectedSeq = (h.seq + 1) >>> 0;
    } else if (h.seq !== expectedSeq) {
      // A gap: drawing on would show a fragment. Ask for the screen again and wait for it.
      if (expectedSeq !== -1) conn.send({ t: 'term_repaint', term: id });
      expectedSeq = -1;
      drew(payload.byteLength);
      return;
    } else {
      expectedSeq = (h.seq + 1) >>> 0;
    }
    term.write(payload, () => drew(payload.byteLength));
  };

  const onMessage = (m: ServerMessage): void => {
    if (m.t === 'term_view') {
      if (id && m.term !== id) return;
      const first = id !== m.term;
      id = m.term;
      view = { number: m.number, shell: m.shell.split('/').pop() ?? m.shell };
      setTitle(`terminal ${view.number} · ${view.shell} · ${m.cwd}`);
      if (term.cols !== m.cols || term.rows !== m.rows) term.resize(m.cols, m.rows);
      // The attach may have been fitted before the screen was laid out (the fallback 80x24): fitted again now.
      if (first) fitNow();
      controlB.disabled = !mayControl();
      controlB.title = mayControl() ? '' : 'this link is for watching: it cannot take control';
    } else if (m.t === 'term_state' && m.term === id) {
      // The shell's directory now: the title follows a `cd`.
      if (m.cwd && view) setTitle(`terminal ${view.number} · ${view.shell} · ${m.cwd}`);
      const tookIt = m.role === 'holder' && role !== 'holder';
      role = m.role;
      // The holder's size stands: a person who takes the keyboard gets the terminal at their own grid.
      if (tookIt) fitNow();
      // A push sent before the take was read says watcher still; the take's own answer ends it.
      if (role === 'holder' || m.closed || m.exited) taking = false;
      keysLive(role === 'holder' || taking);
      controlB.textContent = role === 'holder' ? 'release control' : 'take control';
      controlB.disabled = m.closed || m.exited || !mayControl();
      controlB.removeAttribute('aria-busy');
      setState(m.notice && m.notice !== m.state ? `${m.notice} · ${m.state}` : m.state);
      handEl.hidden = !m.handOff;
      if (m.handOff) {
        q<HTMLElement>('.term-reason').textContent = `terminal hand-off: ${m.handOff.reason}`;
        q<HTMLElement>('.term-hidden').hidden = !m.handOff.hidden;
      }
    } else if (m.t === 'term_closed' && m.term === id) {
      ended = true;
      taking = false;
      keysLive(false);
      setState(m.message);
      controlB.disabled = true;
    } else if (m.t === 'error' && m.for?.startsWith('term_')) {
      // An acknowledgement racing the terminal's end is nobody's news: the line keeps what ended it.
      if (m.for === 'term_ack') return;
      setState(m.message);
      controlB.removeAttribute('aria-busy');
      if (m.for === 'term_control') {
        taking = false;
        keysLive(role === 'holder');
        controlB.textContent = role === 'holder' ? 'release control' : 'take control';
      }
    }
  };

  const send = (data: string): void => {
    if (!(role === 'holder' || taking) || !id) return;
    // Refused here, in words, rather than sent for the server to refuse: a paste past the
    // socket's own bound would end the connection instead of getting an answer.
    if (data.length > TERM_INPUT_MAX_CHARS) { setState(pasteTooLong(TERM_INPUT_MAX_CHARS)); return; }
    conn.send({ t: 'term_input', term: id, data });
  };
  const bar = keyBar(send, () => term.modes.applicationCursorKeysMode);
  bar.setEnabled(false);
  const keysLive = (on: boolean): void => {
    term.options.disableStdin = !on;
    bar.setEnabled(on);
  };
  if (matchMedia('(pointer: coarse)').matches) el.append(bar.el);

  term.onData((d) => send(bar.modify(d)));
  term.onBinary((d) => send(d));
  // Cmd+W belongs to the window or the tab, never to the shell. A desktop browser takes it before
  // the page; on a phone's hardware keyboard nothing does, so there it lowers the surface as Back does.
  const isCmdW = (e: KeyboardEvent): boolean => e.metaKey && e.key.toLowerCase() === 'w';
  // Ctrl+Shift+C and Ctrl+Insert copy the selection, as a Linux or Windows terminal does (Ctrl-C
  // itself is the shell's); with nothing selected they are the shell's keys. A watcher copies too.
  const isCopyChord = (e: KeyboardEvent): boolean => e.ctrlKey && !e.altKey && !e.metaKey
    && ((e.shiftKey && e.key.toLowerCase() === 'c') || (!e.shiftKey && e.key === 'Insert'));
  term.attachCustomKeyEventHandler((e) => {
    if (opts.toBar && isPaneChord(e)) {
      if (e.type === 'keydown') { e.preventDefault(); opts.toBar(); }
      return false;
    }
    if (isCopyChord(e) && term.hasSelection()) {
      if (e.type === 'keydown') {
        e.preventDefault();
        navigator.clipboard.writeText(term.getSelection()).catch(() => setState('the selection was not copied: this browser would not let forge use the clipboard'));
      }
      return false;
    }
    return !isCmdW(e);
  });
  const onCmdW = (e: KeyboardEvent): void => {
    if (!isCmdW(e) || !matchMedia('(pointer: coarse)').matches) return;
    e.preventDefault();
    if (opts.bar) opts.leave?.(); else history.back();
  };
  window.addEventListener('keydown', onCmdW, true);

  controlB.addEventListener('click', () => {
    if (!id) return;
    const take = role !== 'holder';
    controlB.textContent = take ? 'taking control…' : 'releasing…';
    controlB.setAttribute('aria-busy', 'true');
    conn.send({ t: 'term_control', term: id, take });
    if (take) {
      taking = true;
      keysLive(true);
      term.focus();
    }
  });
  q<HTMLButtonElement>('.term-done').addEventListener('click', () => conn.send({ t: 'term_answer', term: id, answer: 'done' }));
  q<HTMLButtonElement>('.term-notnow').addEventListener('click', () => conn.send({ t: 'term_answer', term: id, answer: 'not_now' }));

  const offMsg = conn.onMessage(onMessage);
  const offBin = conn.onBinary(onFrame);
  // A dropped socket ends this client's attach and its hold on the keyboard, as the server sees
  // it: the surface says so and goes inert, and the next open attaches again, repainted afresh.
  let dropped = false;
  let ended = false;
  const offState = conn.onState?.((st) => {
    if (closed || ended) return;
    if (st === 'open') {
      if (!dropped) return;
      dropped = false;
      expectedSeq = -1;
      // The old attach and its unacknowledged bytes died with the socket; the next view names the
      // terminal (a fresh one if the seat's ended meanwhile).
      id = 0;
      pendingAck = 0;
      setState(`${TERM_STATE.opening}…`);
      conn.send({ t: 'term_attach', seat: opts.seat, ...size() });
    } else if ((st === 'down' || st === 'ended') && !dropped) {
      dropped = true;
      role = 'watcher';
      taking = false;
      keysLive(false);
      controlB.disabled = true;
      controlB.textContent = 'take control';
      controlB.removeAttribute('aria-busy');
      setState(`${TERM_STATE.connectionDown}…`);
    }
  });

  /**
   * The terminal at the grid its screen fits now, and the server told (it takes the size from the
   * keyboard's holder, or from anyone while nobody holds it; another's holder repaints this one).
   */
  function fitNow(): void {
    if (!id || closed) return;
    const s = size();
    if (s.cols === term.cols && s.rows === term.rows) return;
    term.resize(s.cols, s.rows);
    conn.send({ t: 'term_resize', term: id, cols: s.cols, rows: s.rows });
  }
  const size = (): { cols: number; rows: number } => {
    const d = fit.proposeDimensions();
    return { cols: Math.max(2, Math.min(500, d?.cols ?? 80)), rows: Math.max(1, Math.min(300, d?.rows ?? 24)) };
  };
  const { cols, rows } = size();
  term.resize(cols, rows);
  conn.send({ t: 'term_attach', seat: opts.seat, cols, rows });
  // Frames held while this chunk loaded: draw them once the attach has named the terminal.
  if (opts.heldOverflow) queueMicrotask(() => { if (id) conn.send({ t: 'term_repaint', term: id }); });
  for (const f of opts.held ?? []) onFrame(f);

  const ro = new ResizeObserver(() => fitNow());
  ro.observe(q<HTMLElement>('.term-screen'));

  // The surface pushes one history entry: Back lowers it, as the hardware Back does on a phone.
  // Under another bar, that bar's owner has the entry and the back button.
  const onPop = (): void => lower();
  if (!opts.bar) {
    history.pushState({ forgeTerminal: true }, '');
    window.addEventListener('popstate', onPop);
    q<HTMLButtonElement>('.term-back').addEventListener('click', () => history.back());
  }

  const close = (): void => {
    if (closed) return;
    closed = true;
    ack();
    clearTimeout(ackTimer);
    if (id) conn.send({ t: 'term_detach', term: id });
    offMsg();
    offBin();
    offState?.();
    ro.disconnect();
    window.removeEventListener('popstate', onPop);
    window.removeEventListener('keydown', onCmdW, true);
    window.removeEventListener(THEME_CHANGED, retheme);
    term.dispose();
    el.remove();
    if (opts.bar) q<HTMLElement>('.term-controls')?.remove();
  };
  const lower = (): void => {
    close();
    opts.onLower?.();
  };
  return { term, close };
}

async function tryWebgl(term: Terminal): Promise<void> {
  try {
    const { WebglAddon } = await import('@xterm/addon-webgl');
    const gl = new WebglAddon();
    gl.onContextLoss(() => gl.dispose());
    term.loadAddon(gl);
  } catch {
    // The DOM renderer stays: never an empty terminal over a live shell.
  }
}

function installStyle(): void {
  if (document.getElementById('forge-term-style')) return;
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = '/xterm.css';
  document.head.append(link);
  const style = document.createElement('style');
  style.id = 'forge-term-style';
  style.textContent = SURFACE_CSS;
  document.head.append(style);
}

/**
 * A terminal's parser that never stops for good on a sequence it cannot take: the server's screen
 * model and the web client's xterm.js alike.
 *
 * xterm.js (6.0) runs each sequence's handler inside its write queue. A handler that throws (the
 * fuzz found one: an erase above from the bottom-right corner of a fresh screen) leaves the queue
 * with bytes it never takes up again, so every byte after it is never drawn, and nothing says so.
 * Here every handler the parser holds when this runs is wrapped: a throw is caught, that one
 * sequence counts as handled (whatever it drew before it threw stays), and the parser goes on
 * with the next byte. The queue's step is wrapped too, as a second net for a throw outside any
 * handler: its parser is put back between sequences, the rest of that one write is lost, and the
 * queue goes on. Either way `onThrow` hears it, to say it to whoever reads the screen.
 */

/** What was caught: where, and xterm.js's own words. */
export interface CaughtThrow { where: string; message: string }

type Fn = (...args: unknown[]) => unknown;
interface StringHandler { start?: Fn; hook?: Fn; put?: Fn; end?: Fn; unhook?: Fn }

/** Where xterm.js keeps its parser's handlers and its write queue (the package is pinned in the lock). */
interface GuardInternals {
  _core?: {
    _inputHandler?: {
      _parser?: {
        _printHandler?: Fn;
        _executeHandlers?: Record<string, Fn>;
        _csiHandlers?: Record<string, Fn[]>;
        _escHandlers?: Record<string, Fn[]>;
        _oscParser?: { _handlers?: Record<string, StringHandler[]> };
        _dcsParser?: { _handlers?: Record<string, StringHandler[]> };
        reset?: () => void;
      };
    };
    _writeBuffer?: { _action?: Fn };
  };
}

/**
 * Wraps `term`'s handlers and write step; call it after every handler of one's own is registered
 * (a handler registered later is not wrapped). False when xterm.js's parts cannot be found (a
 * version that moved them): the terminal then runs as xterm.js made it.
 */
export function guardHandlers(term: object, onThrow: (caught: CaughtThrow) => void): boolean {
  const core = (term as GuardInternals)._core;
  const parser = core?._inputHandler?._parser;
  const queue = core?._writeBuffer;
  if (!parser || !queue?._action || !parser._csiHandlers || !parser._escHandlers || !parser._executeHandlers || !parser.reset) return false;
  const caught = (where: string, e: unknown): void => {
    try { onThrow({ where, message: e instanceof Error ? e.message : String(e) }); } catch { /* the listener's fault is not the parser's */ }
  };
  // Each wrapper takes exactly its handler's arguments, and no rest array: a wrapper that passed
  // three to every handler cost the parse ~12%, these cost it nothing measurable (bench micro's
  // model tasks). The handlers are closures or bound, so `this` is not passed.
  const wrap0 = (fn: Fn, where: string, handled: unknown): Fn => (): unknown => {
    try { return fn(); } catch (e) { caught(where, e); return handled; }
  };
  const wrap1 = (fn: Fn, where: string, handled: unknown): Fn => (a: unknown): unknown => {
    try { return fn(a); } catch (e) { caught(where, e); return handled; }
  };
  const wrap3 = (fn: Fn, where: string): Fn => (a: unknown, b: unknown, c: unknown): unknown => {
    try { return fn(a, b, c); } catch (e) { caught(where, e); return undefined; }
  };
  if (parser._printHandler) parser._printHandler = wrap3(parser._printHandler, 'printing text');
  for (const [code, fn] of Object.entries(parser._executeHandlers)) parser._executeHandlers[code] = wrap0(fn, `control 0x${Number(code).toString(16)}`, true);
  for (const [ident, list] of Object.entries(parser._csiHandlers)) {
    for (let i = 0; i < list.length; i++) list[i] = wrap1(list[i], `a CSI sequence (${identName(Number(ident))})`, true);
  }
  for (const [ident, list] of Object.entries(parser._escHandlers)) {
    for (let i = 0; i < list.length; i++) list[i] = wrap0(list[i], `an ESC sequence (${identName(Number(ident))})`, true);
  }
  // A string's handler: OSC start(), DCS hook(params); put(data, start, end); OSC end(success), DCS unhook(success).
  for (const [strings, kind] of [[parser._oscParser?._handlers, 'OSC'], [parser._dcsParser?._handlers, 'DCS']] as const) {
    for (const [ident, list] of Object.entries(strings ?? {})) {
      const where = `an ${kind} string (${kind === 'OSC' ? ident : identName(Number(ident))})`;
      for (const h of list) {
        if (typeof h.start === 'function') h.start = wrap0(h.start.bind(h), where, undefined);
        if (typeof h.hook === 'function') h.hook = wrap1(h.hook.bind(h), where, undefined);
        if (typeof h.put === 'function') h.put = wrap3(h.put.bind(h), where);
        if (typeof h.end === 'function') h.end = wrap1(h.end.bind(h), where, true);
        if (typeof h.unhook === 'function') h.unhook = wrap1(h.unhook.bind(h), where, true);
      }
    }
  }
  const action = queue._action;
  const reset = parser.reset.bind(parser);
  queue._action = function guardedWrite(this: unknown, ...args: unknown[]): unknown {
    try { return action.apply(this, args); } catch (e) {
      try { reset(); } catch { /* a parser that cannot reset is left as it is */ }
      caught('the rest of one write', e);
      return undefined;
    }
  };
  return true;
}

/** A sequence's identifier as xterm.js packs it (prefix and intermediates, then the final byte), in characters. */
function identName(ident: number): string {
  let s = '';
  for (let v = ident; v > 0; v = Math.floor(v / 256)) s = String.fromCharCode(v & 0xff) + s;
  return s || '?';
}

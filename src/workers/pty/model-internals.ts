/**
 * What the screen model (@xterm/headless, pinned in the lock) holds where its public API is
 * silent, read in one place: the scroll region, the shifted character set, and whether its parser
 * stands between sequences. Each reader answers a safe default if a new version moved the field;
 * the round-trip and feed tests fail then, rather than the terminal.
 */
import type { Terminal } from '@xterm/headless';

interface ModelInternals {
  _core?: {
    buffer?: { scrollTop?: number; scrollBottom?: number };
    _charsetService?: { glevel?: number };
    _inputHandler?: { _parser?: { currentState?: number }; _parseStack?: { state?: number } };
  };
}

/** The parser's ground state (no escape, control string or sequence under way). */
const PARSER_GROUND = 0;

const core = (model: Terminal): ModelInternals['_core'] => (model as unknown as ModelInternals)._core;

/** The active buffer's scroll region, 0-based rows; null when it cannot be read. */
export function scrollRegion(model: Terminal): { top: number; bottom: number } | null {
  const b = core(model)?.buffer;
  return b?.scrollTop === undefined || b.scrollBottom === undefined ? null : { top: b.scrollTop, bottom: b.scrollBottom };
}

/** The shifted character set (SO selects G1): 0 or 1. */
export function charsetLevel(model: Terminal): number {
  return core(model)?._charsetService?.glevel ?? 0;
}

/** Whether the parser stands between sequences, with nothing half read (false when it cannot be told). */
export function parserAtGround(model: Terminal): boolean {
  const input = core(model)?._inputHandler;
  return input?._parser?.currentState === PARSER_GROUND && (input._parseStack?.state ?? 0) === 0;
}

/** The words a terminal's row says for its state, shared by the strip and the home. */
import { TERM_STATE, type TermRow } from '../../../src/shared/terminal.js';

/** The row's words for a terminal's state as the server pushed it. */
export function rowWords(row: TermRow | null, holdingHere: boolean): string {
  if (!row) return 'off';
  if (row.state === 'idle' && row.held) return holdingHere ? TERM_STATE.youHaveControl : TERM_STATE.otherHasKeyboard;
  if (row.state === 'a command is running') return row.held && !holdingHere ? TERM_STATE.otherHasKeyboard : row.state;
  return row.state;
}

/** A seat's short name: its label, the last part of org/project/label. */
export function seatLabel(seat: string): string {
  return seat.split('/').pop() || seat;
}

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

/**
 * Short names for `seats` shown side by side: each its label, but `project/label` where two
 * share a label (every project has a `lead`), so no two rows read the same.
 */
export function seatNames(seats: Iterable<string>): (seat: string) => string {
  const byLabel = new Map<string, Set<string>>();
  for (const s of seats) {
    const l = seatLabel(s);
    byLabel.set(l, (byLabel.get(l) ?? new Set()).add(s));
  }
  return (seat) => {
    const l = seatLabel(seat);
    return (byLabel.get(l)?.size ?? 0) > 1 ? seat.split('/').slice(-2).join('/') : l;
  };
}

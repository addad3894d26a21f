/**
 * Who drove what: one line of a seat's activity, as the server records it and the home draws it.
 * An agent's tool call (the tool, its target in words, how it ended, how long it took) or a
 * person's act (took control, released, answered a hand-off and how). No Node or DOM imports.
 */
export interface ActivityEvent {
  /** When it ended, ms since the epoch. */
  at: number;
  /** The seat it belongs to: the calling seat, or the owner of the tab or terminal acted on. */
  seat: string;
  /** An agent over MCP, or a person on a viewer. */
  by: 'agent' | 'person';
  /** For a person: their token's name, or "the hand-off link". */
  who?: string;
  /** The tool's name, or the person's act in words ("took control"). */
  what: string;
  /** What it acted on, in words: `button "Save" on tab 2`, `https://…`, `terminal 1`. */
  target?: string;
  outcome: 'ok' | 'error';
  /** The error's sentence, or a hand-off answer's note, cut to ACTIVITY_DETAIL_MAX_CHARS. */
  detail?: string;
  /** How long the call took, ms (agents' calls). */
  ms?: number;
}

/** Longest target or detail an activity line keeps, characters: a line is read at a glance. */
export const ACTIVITY_DETAIL_MAX_CHARS = 160;

/** A string cut to `max` characters, with an ellipsis when cut. */
export function clip(s: string, max = ACTIVITY_DETAIL_MAX_CHARS): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length <= max ? one : `${one.slice(0, max - 1)}…`;
}

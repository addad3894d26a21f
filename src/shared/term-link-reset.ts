/**
 * Hyperlinks (OSC 8) across a reset (RIS, `ESC c`: what `reset` and `tput reset` send), in a
 * terminal's own parser: the server's screen model and the web client's xterm.js alike. xterm.js
 * (6.0) keeps each link in its link service with a marker for every line the link is on; a marker
 * listens on its buffer's lines, and is disposed only when its line is trimmed off that buffer. A
 * reset replaces both buffers without disposing their markers, so every link the old buffers held
 * stays in the service for good and, through its markers' listeners, keeps the whole old buffer
 * alive: up to 2,000 rows of scrollback per reset (measured: 200 resets, each after one link,
 * +11 MB of heap that never went; the terminal fuzz's pty thread grew to 106 MB of heap over 10^6
 * inputs).
 *
 * Here, just before a reset runs, every link's markers are disposed: the reset erases every line
 * they were on, and the link service forgets a link once it is on no line.
 */

/** The parts of an xterm.js Terminal (headless or the browser's) this reads. */
export interface ResettingTerminal {
  readonly parser: { registerEscHandler(id: { final: string }, callback: () => boolean | Promise<boolean>): { dispose(): void } };
}

/** Where xterm.js keeps its links (the package is pinned in the lock). */
interface LinkInternals {
  _core?: { _oscLinkService?: { _dataByLinkId?: Map<number, { lines?: Array<{ dispose(): void }> }> } };
}

/** xterm.js's links by id, or undefined where they cannot be found. */
const linksOf = (term: ResettingTerminal): Map<number, { lines?: Array<{ dispose(): void }> }> | undefined =>
  (term as unknown as LinkInternals)._core?._oscLinkService?._dataByLinkId;

/** Links `term`'s link service holds now (0 where it cannot be read). */
export function linksHeld(term: ResettingTerminal): number {
  return linksOf(term)?.size ?? 0;
}

/**
 * Registers the drop on `term`. Where xterm.js's link service cannot be found (a version that
 * renamed it), the reset runs as before.
 */
export function dropLinksOnReset(term: ResettingTerminal): { dispose(): void } {
  return term.parser.registerEscHandler({ final: 'c' }, () => {
    const links = linksOf(term);
    if (links) for (const link of [...links.values()]) for (const marker of [...(link.lines ?? [])]) marker.dispose();
    // Not handled here: xterm.js's own reset runs next.
    return false;
  });
}

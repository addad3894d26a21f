/**
 * Every bound forge enforces, with its unit and the trade-off it makes.
 * Shared by the server, the web client and the bench: no Node, uWS or DOM imports here.
 */

/** Inbound socket bound, bytes: a file-chooser answer is base64 in one message, and 8 MiB of bytes fits under it. */
export const SOCKET_INBOUND_MAX_BYTES = 16 * 1024 * 1024;

/**
 * Deepest nesting of maps and arrays a control message may have, levels: a real one nests four at
 * most (an input event's fields in the message). A deeper one is refused at the door, before it is
 * handed between threads (a copy that recurses as deep as the message would exhaust the stack).
 */
export const CONTROL_NESTING_MAX = 32;

/** Files in one file-chooser answer: past this the whole answer is a dismiss, never a partial upload. */
export const FILE_CHOOSER_MAX_FILES = 16;

/** Bytes in one file-chooser answer: base64 of 8 MiB (~10.7 MiB) is what really fits under the 16 MiB socket bound. */
export const FILE_CHOOSER_MAX_BYTES = 8 * 1024 * 1024;

/** Largest download handed to a client, bytes: a bigger file is refused in words rather than streamed to a phone. */
export const DOWNLOAD_MAX_BYTES = 32 * 1024 * 1024;

/** Finished downloads a profile keeps for its controller: older ones are dropped and the loss is announced. */
export const DOWNLOAD_BACKLOG_MAX = 4;

/** Characters of base64 one file-chooser answer may carry: 8 MiB of bytes, encoded, so a bigger answer is refused before it is decoded. */
export const FILE_CHOOSER_MAX_BASE64_CHARS = Math.ceil(FILE_CHOOSER_MAX_BYTES / 3) * 4;

/** Longest file name a file-chooser answer may give, characters: what common file systems store. */
export const FILE_NAME_MAX_CHARS = 255;

/** Answered file choosers whose files a profile keeps on disk, so a page can still read what it was handed; older ones are removed. */
export const FILE_CHOOSER_UPLOADS_KEPT = 4;

/** A download link's life, minutes: long enough for a person to come back to the page, short enough that a copied link dies. */
export const DOWNLOAD_LINK_MINUTES = 60;

/** How long drops from a profile's download backlog are gathered into one notice, ms: a burst of downloads is one message with its count. */
export const DOWNLOAD_LOSS_GATHER_MS = 200;

/** Events a seat's next tool result may carry (file choosers, downloads): older ones beyond this are summarised by count. */
export const AGENT_EVENTS_MAX = 32;

/** Popups one page may hold at once: the 17th is refused in words, so a runaway page cannot fill the host. */
export const POPUPS_PER_PAGE_MAX = 16;

/** Driver attach bound, ms: a connectOverCDP that has not answered by then is replaced, not waited on. */
export const DRIVER_ATTACH_TIMEOUT_MS = 30_000;

/** Default page-action bound, ms: long enough for a slow page, short enough that an agent hears back. */
export const PAGE_ACTION_TIMEOUT_MS = 15_000;

/** Navigation bound, ms: a load that has not committed by then is reported as slow, the tab stays usable. */
export const NAVIGATION_TIMEOUT_MS = 30_000;

/** Host start bound, ms: Xvfb and Chromium up and answering on its DevTools pipe; past it the start failed. */
export const HOST_START_TIMEOUT_MS = 20_000;

/** Graceful shutdown bound, ms: the whole server, every Xvfb and Chromium included, is gone within this. */
export const SHUTDOWN_TIMEOUT_MS = 5_000;

/** Default idle close, minutes, for a browser host with no call and no viewer. */
export const BROWSER_IDLE_MINUTES_DEFAULT = 30;

/**
 * How long a seat outlives its last MCP session, seconds ([agent] reconnect_grace_s): an agent's
 * /new or /resume, or `forge mcp` restarting, opens its next session within it and finds its
 * terminal, shell and scrollback as it left them; past it the seat is released. Two minutes
 * covers a client restart with room; a crashed agent's shell lives that long more.
 */
export const RECONNECT_GRACE_S_DEFAULT = 120;

/** Default idle close, minutes, for a terminal nobody uses. */
export const TERMINAL_IDLE_MINUTES_DEFAULT = 30;

/**
 * Default tabs no viewer shows that stay loaded per profile, for tabs an agent used last: past it
 * the least recently used one is unloaded (its renderer's memory freed) and rebuilt on its next call.
 */
export const HIDDEN_AGENT_TABS_DEFAULT = 6;
/** The same budget for tabs a person used last: kept apart, so agents opening tabs never unload a person's pages. */
export const HIDDEN_PERSON_TABS_DEFAULT = 3;

/** The page's layout when no viewer gives it one, CSS px. */
export const DEFAULT_PAGE_WIDTH = 1280;
export const DEFAULT_PAGE_HEIGHT = 720;

/** Snapshot text bound, characters: a larger snapshot is cut with a note, so one page cannot flood the agent. */
export const SNAPSHOT_MAX_CHARS = 200_000;

/** Evaluate result bound, characters. */
export const EVALUATE_RESULT_MAX_CHARS = 100_000;

/** Longest text one browser input message may insert, characters: a paste, not a file. The client refuses past it before sending. */
export const INPUT_TEXT_MAX_CHARS = 100_000;

/** One terminal keystroke message's bound, characters: a larger paste is refused in words, never cut. The client refuses past it before sending. */
export const TERM_INPUT_MAX_CHARS = 1024 * 1024;

/** What a person reads when a paste is past `max` characters. */
export const pasteTooLong = (max: number): string => `a paste is limited to ${max.toLocaleString('en-US')} characters; nothing was typed`;

/** A seat's page calls waiting behind the one running on a tab: each runs after the one before it finished; past this a call is refused in words (a runaway loop, not a workload). */
export const PAGE_CALLS_QUEUED_PER_TAB_MAX = 64;

/** An evaluate's bound, ms: a promise the page never settles is answered in words by then (the page goes on running it), well inside the page call's own deadline. */
export const EVALUATE_TIMEOUT_MS = 30_000;

/**
 * Bytes a control message may take on the wire unless its kind carries a paste or files: a real
 * one names a handful of things (a hand-off note of HANDOFF_NOTE_MAX_CHARS is under 24 KiB). Past
 * it the relay refuses the message in words before it crosses to another thread, where each copy
 * of a multi-megabyte message is a transient buffer the allocator keeps long after it is freed.
 */
export const CONTROL_MESSAGE_MAX_BYTES = 64 * 1024;

/** Bytes UTF-8 spends at most on one UTF-16 code unit (a surrogate pair is two units, four bytes). */
const UTF8_BYTES_PER_CODE_UNIT_MAX = 3;

/** Room for a paste message's own fields beside its text, bytes. */
const PASTE_MESSAGE_OVERHEAD_BYTES = 1024;

/** The kinds that carry bulk, each with its own wire bound: the text or files its handler takes, encoded. */
const CONTROL_KIND_MAX_BYTES: Readonly<Record<string, number>> = {
  file_chooser_answer: SOCKET_INBOUND_MAX_BYTES,
  term_input: TERM_INPUT_MAX_CHARS * UTF8_BYTES_PER_CODE_UNIT_MAX + PASTE_MESSAGE_OVERHEAD_BYTES,
  input: INPUT_TEXT_MAX_CHARS * UTF8_BYTES_PER_CODE_UNIT_MAX + PASTE_MESSAGE_OVERHEAD_BYTES,
};

/** The wire bound of a control message of kind `kind`, bytes. */
export function controlMessageMaxBytes(kind: string): number {
  return Object.hasOwn(CONTROL_KIND_MAX_BYTES, kind) ? CONTROL_KIND_MAX_BYTES[kind]! : CONTROL_MESSAGE_MAX_BYTES;
}

/** What a viewer reads when its message of kind `kind` is past its wire bound. */
export function controlMessageTooBig(kind: string): string {
  if (kind === 'term_input') return pasteTooLong(TERM_INPUT_MAX_CHARS);
  if (kind === 'input') return pasteTooLong(INPUT_TEXT_MAX_CHARS);
  const max = controlMessageMaxBytes(kind);
  return `a "${kind}" message is limited to ${max >= 1024 * 1024 ? `${max / (1024 * 1024)} MiB` : `${max / 1024} KiB`}; it was ignored`;
}

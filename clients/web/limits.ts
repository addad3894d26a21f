/**
 * The web client's own bounds and cadences, each with its unit and the trade-off it makes.
 * The server's limits live in src/shared/limits.ts.
 */

/** First reconnect wait, ms: short enough that a server restart feels like a blink. */
export const RECONNECT_FIRST_MS = 250;
/** Longest reconnect wait, ms: a server that stays down is tried often enough to come back within seconds. */
export const RECONNECT_MAX_MS = 8_000;
/** Each failed reconnect multiplies the wait by this; jitter keeps many tabs from retrying in step. */
export const RECONNECT_FACTOR = 2;

/** Ping period, ms: well inside the relay's 60 s idle close, so a quiet viewer is never dropped. */
export const PING_PERIOD_MS = 20_000;

/** Resize settle, ms: a dragged window sends one resize when it rests, not one per pixel. */
export const RESIZE_SETTLE_MS = 120;

/** Largest gap between presses that still counts as a double click, ms (the platforms' usual default). */
export const MULTI_CLICK_MS = 500;
/** Largest travel between presses that still counts as a double click, CSS px. */
export const MULTI_CLICK_SLOP_PX = 4;

/** Finger travel before a touch is a swipe (a wheel) rather than a tap, CSS px. */
export const TAP_SLOP_PX = 10;

/** How long a refusal stays on the bar's notice line, ms: long enough to read a sentence. */
export const NOTICE_MS = 6_000;

/** How often the frame worker reports what it drew, ms: the page's counters, not a per-frame message. */
export const FRAME_REPORT_MS = 250;

/**
 * The page sound's jitter buffer at the start of a sound, ms: how far ahead of the speaker its
 * first packet is scheduled. Packets are 20 ms; on loopback and a calm LAN they arrive within a
 * few ms of each other, so one packet's worth is enough and keeps the sound within 80 ms of its
 * picture (it reaches the socket ~30–40 ms after the picture of the same moment).
 */
export const SOUND_JITTER_START_MS = 20;
/** What one late packet adds to the buffer, ms: a packet's length. */
export const SOUND_JITTER_STEP_MS = 20;
/** The buffer's ceiling, ms: a phone link's bursts come 20–40 ms apart; past this the sound is too late to belong to its picture. */
export const SOUND_JITTER_MAX_MS = 100;
/** A calm spell that takes one step off the buffer again, ms. */
export const SOUND_JITTER_CALM_MS = 10_000;
/**
 * A gap between packets longer than this is the page going quiet (silence is not sent), not a
 * late packet, ms: the next sound starts afresh without growing the buffer.
 */
export const SOUND_GAP_MS = 120;
/** Scheduled sound past this much ahead, ms, is dropped and the buffer restarts: a link that stalled plays late audio never. */
export const SOUND_BACKLOG_MAX_MS = 250;
/** How long after its last packet a tab still counts as playing sound here, ms. */
export const SOUND_HEARD_MS = 600;

/**
 * The viewer socket's door: one zod schema per kind of message a viewer sends, each field's
 * refusal in the sentence the viewer is shown. The hub checks every message here before its
 * handler runs, so a handler gets its own kind, narrowed; what a check needs of the server's
 * state (a tab, a terminal, a hand-off, the controller role) stays with the handler.
 *
 * Objects are not strict: a field this server does not know is accepted and dropped, as a newer
 * client may send more. A message's `id` is never a reason to refuse it: one that is not a safe
 * integer is dropped, as the reply's id is.
 */
import { z } from 'zod';
import type { ClientMessageKind, ClientMessageOf, UncheckedMessage } from '../shared/protocol.js';
import { ForgeError } from '../shared/errors.js';
import { FILE_CHOOSER_MAX_BASE64_CHARS, TERM_INPUT_MAX_CHARS, pasteTooLong } from '../shared/limits.js';
import { TERM_COLS_MAX, TERM_COLS_MIN, TERM_ROWS_MAX, TERM_ROWS_MIN } from '../shared/terminal.js';
import { THUMB_ASK_MAX_TABS } from './browser/thumbnails.js';

/** Every issue a check raises is refused in these words. */
const said = (sentence: string): { message: string } => ({ message: sentence });

const id = z.unknown().transform((v) => (typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined));

/** A message of kind `t` with these fields, and its optional id. */
function kind<T extends ClientMessageKind, S extends z.ZodRawShape>(t: T, shape: S) {
  return z.object({ t: z.literal(t), ...shape, id });
}

function wholeNumber(what: string, min: number, max: number): z.ZodNumber {
  const m = said(`${what} must be a whole number from ${min} to ${max}`);
  return z.number(m).int(m).min(min, m).max(max, m);
}

function finite(sentence: string): z.ZodNumber {
  return z.number(said(sentence)).finite(said(sentence));
}

function yesNo(what: string): z.ZodBoolean {
  return z.boolean(said(`${what} must be true or false`));
}

const SURFACE = 'a surface size needs numbers w and h (CSS px)';
const browserSeat = z.string(said('seat must be ORG/PROJECT/LABEL'));

/**
 * A gesture, checked field by field in the words of "the input event was refused: …". Written
 * here rather than as a checker of its own in gestures.ts: the door checks it once with the rest
 * of the message, so a queued gesture is already the InputEvent the page is driven with.
 */
const refusedEvent = (why: string): { message: string } => said(`the input event was refused: ${why}`);
const point = (k: string): z.ZodNumber => z.number(refusedEvent(`${k} must be a number`)).finite(refusedEvent(`${k} must be a number`));
const modifiers = point('modifiers').optional();
const inputEvent = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('mouse'),
    action: z.enum(['down', 'up', 'move'], refusedEvent('a mouse action is down, up or move')),
    x: point('x'),
    y: point('y'),
    button: z.enum(['left', 'middle', 'right', 'none'], refusedEvent('a mouse button is left, middle, right or none')).optional(),
    buttons: point('buttons').optional(),
    clickCount: point('clickCount').optional(),
    modifiers,
  }),
  z.object({ type: z.literal('wheel'), x: point('x'), y: point('y'), dx: point('dx'), dy: point('dy'), modifiers }),
  z.object({
    type: z.literal('key'),
    action: z.enum(['down', 'up'], refusedEvent('a key action is down or up')),
    key: z.string(refusedEvent('key must name the key')).min(1, refusedEvent('key must name the key')),
    code: z.string(refusedEvent('code must be a string')).optional(),
    modifiers,
  }),
  z.object({ type: z.literal('text'), text: z.string(refusedEvent('text must be a string')) }),
], {
  errorMap: (issue, ctx) => ({
    message: issue.code === 'invalid_type' ? refusedEvent('ev must be a map').message
      : issue.code === 'invalid_union_discriminator' ? refusedEvent('type must be mouse, wheel, key or text').message
        : ctx.defaultError,
  }),
});

/** One picked file, refused in words that say which file (its place in the answer's list). */
function fileRefused(why: string): z.RawCreateParams {
  return { errorMap: (issue) => ({ message: fileSentence(issue.path, why) }) };
}
function fileSentence(path: Array<string | number>, why: string): string {
  const n = path.find((p): p is number => typeof p === 'number') ?? 0;
  return `file ${n + 1} of the answer was refused: ${why}; the chooser is still open`;
}
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const pickedFile = z.object({
  name: z.string(fileRefused('name must be the file\'s name')).regex(/\S/),
  type: z.string(fileRefused('type must be a MIME type')).optional(),
  // Past the bound the size check answers it (a dismiss with its sentence), not this one.
  data: z.string(fileRefused('data must be the file\'s bytes as base64')).superRefine((data, ctx) => {
    if (data.length <= FILE_CHOOSER_MAX_BASE64_CHARS && (data.length % 4 !== 0 || !BASE64.test(data))) {
      ctx.addIssue({ code: 'custom', message: fileSentence(ctx.path, 'data is not valid base64') });
    }
  }),
}, fileRefused('each file is a map {name, data}'));

const CARRIES_FILES = 'a file_chooser_answer carries files (a list of {name, data}) or dismiss: true';
const PICKED = 'picked is {files, bytes}: how many files the person chose, and their size in bytes';
const THUMBS = `thumbs takes pageIds, a list of at most ${THUMB_ASK_MAX_TABS} page ids`;

const termId = wholeNumber('term', 1, 2 ** 32 - 1);
const cols = wholeNumber('cols', TERM_COLS_MIN, TERM_COLS_MAX);
const rows = wholeNumber('rows', TERM_ROWS_MIN, TERM_ROWS_MAX);

type Schemas = { [K in ClientMessageKind]: z.ZodType<ClientMessageOf<K>, z.ZodTypeDef, unknown> };

/** Each kind's schema; the type keeps it in step with ClientMessage, kind by kind. */
export const VIEWER_MESSAGE_SCHEMAS: Schemas = {
  hello: kind('hello', { token: z.string(said('hello needs the token in "token"')) }),
  tabs: kind('tabs', { seat: browserSeat.optional(), every: yesNo('every').optional() }),
  attach: kind('attach', {
    tab: z.number(said('tab must be a tab number')).optional(),
    pageId: z.string(said('pageId must be a page id')).optional(),
    seat: browserSeat.optional(),
    w: finite(SURFACE),
    h: finite(SURFACE),
  }),
  detach: kind('detach', {}),
  resize: kind('resize', { w: finite(SURFACE), h: finite(SURFACE) }),
  control: kind('control', { take: yesNo('take') }),
  nav: kind('nav', { dir: z.enum(['back', 'forward'], said('nav dir must be back or forward')) }),
  input: kind('input', { ev: inputEvent }),
  ping: kind('ping', {}),
  activity: kind('activity', {}),
  keyframe: kind('keyframe', {}),
  file_chooser_answer: kind('file_chooser_answer', {
    chooser: z.string(said('a file_chooser_answer names its chooser (the id the file_chooser message gave)')),
    files: z.array(pickedFile, said(CARRIES_FILES)).optional(),
    dismiss: yesNo('dismiss').optional(),
    picked: z.object({ files: z.number(said(PICKED)), bytes: z.number(said(PICKED)) }, said(PICKED)).optional(),
  }).superRefine((m, ctx) => {
    if (m.dismiss !== true && m.files === undefined) ctx.addIssue({ code: 'custom', message: CARRIES_FILES });
  }),
  thumbs: kind('thumbs', { pageIds: z.array(z.string(said(THUMBS)), said(THUMBS)).max(THUMB_ASK_MAX_TABS, said(THUMBS)) }),
  handoffs: kind('handoffs', {}),
  answer: kind('answer', {
    // A missing id is answered as an id no hand-off carries.
    handoff: z.string(said('the hand-off (none named) is not waiting any more')),
    answer: z.enum(['done', 'not_now', 'feedback'], said('an answer is done, not_now or feedback')),
    note: z.string(said('a note is words')).optional(),
  }),
  heartbeat: kind('heartbeat', {}),
  term_attach: kind('term_attach', {
    // A seat that is no string is refused as the empty seat would be; its form is parseSeat's to check.
    seat: z.string(said('a seat is ORG/PROJECT/LABEL (letters, digits, . _ -), not ""')),
    cols,
    rows,
  }),
  term_input: kind('term_input', {
    term: termId,
    data: z.string(said('term_input needs the typed text in "data"'))
      .min(1, said('term_input needs the typed text in "data"'))
      .max(TERM_INPUT_MAX_CHARS, said(pasteTooLong(TERM_INPUT_MAX_CHARS))),
  }),
  term_resize: kind('term_resize', { term: termId, cols, rows }),
  term_control: kind('term_control', { term: termId, take: yesNo('take') }),
  term_detach: kind('term_detach', { term: termId }),
  term_answer: kind('term_answer', { term: termId, answer: z.enum(['done', 'not_now'], said('a hand-off answer is "done" or "not_now"')) }),
  term_ack: kind('term_ack', { term: termId, bytes: wholeNumber('bytes', 0, 2 ** 31) }),
  term_repaint: kind('term_repaint', { term: termId }),
};

/** The message as its kind's schema reads it; a bad one is refused with its first fault's sentence. */
export function checkedMessage<K extends ClientMessageKind>(t: K, msg: UncheckedMessage): ClientMessageOf<K> {
  const r = VIEWER_MESSAGE_SCHEMAS[t].safeParse(msg);
  if (!r.success) throw new ForgeError('bad_request', r.error.issues[0]?.message ?? `the ${t} message was refused`);
  return r.data;
}

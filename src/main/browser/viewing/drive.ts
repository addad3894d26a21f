/**
 * The controller's gestures replayed on its tab as trusted input: points scaled from the
 * controller's box to the page's layout, a copy or cut chord's selection sent to the person's
 * clipboard, the host's own mouse used while a popup window (a select's list) covers the tab, and
 * after a gesture that may move the focus, whether the focus now takes typing.
 */
import { MOD_CTRL, MOD_META, type ServerMessage } from '../../../shared/protocol.js';
import { ForgeError } from '../../../shared/errors.js';
import type { Rect } from '../../../shared/capture.js';
import type { ProfileBrowser } from '../profile.js';
import { aDialog, type Tab } from '../tabs.js';
import { dispatchInput, type ScreenHand } from '../input.js';
import { FOCUS_MOVING_KEYS, focusIsEditable, selectedText } from '../focus.js';
import { acked, type InputMessage } from './gestures.js';
import { overlaps, type Size } from './layout.js';
import type { HostFrameSources } from './host-frames.js';

/** What driving needs of the tabs' viewing: a tab's layout now, who controls it, the viewers' sockets. */
export interface DriveRoom {
  /** The size the tab is laid out at and its window's place on the host's screen, once captured. */
  layoutOf(tab: Tab): { w: number; h: number; viewport: Rect } | undefined;
  frames: HostFrameSources;
  controls(viewer: number, tab: Tab): boolean;
  send(viewer: number, msg: ServerMessage): void;
  /** A gesture whose acknowledgement the page never sent in time. */
  unacked(): void;
}

/** The controller's watch: its tab, the layout it asked for, and its surface's box (the space its points come in). */
export interface DriveWatch { profile: ProfileBrowser; tab: Tab; w: number; h: number; box: Size }

/** The controlling viewer: `focusAsks` counts its focus questions, so only the newest answer is told. */
export interface Driver { info: { id: number }; watch?: { tab: Tab }; focusAsks?: number }

/** Replays one gesture of the controller `s` on the tab it watches (`w`); a held dialog or a silent host refuses it in words. */
export async function drive(room: DriveRoom, s: Driver, w: DriveWatch, ev: InputMessage['ev']): Promise<void> {
  if (w.tab.dialog) throw new ForgeError('dialog_waiting', `tab ${w.tab.number} is held by ${aDialog(w.tab.dialog.kind)} dialog: ${JSON.stringify(w.tab.dialog.message)}`);
  const session = w.profile.driver?.session(w.tab.page);
  if (!session) throw new ForgeError('host_not_answering', 'the host is not answering');
  const layout = room.layoutOf(w.tab) ?? { w: w.w, h: w.h };
  // Points come in the controller's box; the page is laid out at (at most) the capture's size.
  w.profile.lastActivity = Date.now();
  // A copy or cut chord: the selection it takes is read first (a cut removes it), and goes to the person's clipboard.
  const copying = ev.type === 'key' && ev.action === 'down' && (ev.modifiers ?? 0) & (MOD_CTRL | MOD_META) && /^[cx]$/i.test(ev.key)
    ? selectedText(w.tab.page) : undefined;
  if (copying) await copying;
  await acked(dispatchInput(session, ev, { sx: layout.w / w.box.w, sy: layout.h / w.box.h, maxX: layout.w, maxY: layout.h }, await screenHand(room, w)), () => room.unacked());
  const copied = copying ? await copying : '';
  if (copied) room.send(s.info.id, { t: 'copied', tab: w.tab.number, text: copied });
  const focusMayMove = (ev.type === 'mouse' && ev.action === 'up') || (ev.type === 'key' && ev.action === 'up' && FOCUS_MOVING_KEYS.has(ev.key));
  if (focusMayMove) tellFocus(room, s, w.tab);
}

/** The host's own mouse over this tab's window, while a popup window (a select's list) is open over it; else none. */
async function screenHand(room: DriveRoom, w: DriveWatch): Promise<ScreenHand | undefined> {
  const layout = room.layoutOf(w.tab);
  const frames = w.profile.host ? await room.frames.started(w.profile.host)?.catch(() => undefined) : undefined;
  if (!layout || !frames || !frames.pipeline.popups.some((r) => overlaps(r, layout.viewport))) return undefined;
  const v = layout.viewport;
  return { mouse: (action, x, y, button) => frames.pipeline.screenMouse(action, v.x + x, v.y + y, button) };
}

/** Tells the controller whether the page's focus now takes typing (a phone raises its keyboard on it); only the newest answer counts. */
function tellFocus(room: DriveRoom, s: Driver, tab: Tab): void {
  s.focusAsks = (s.focusAsks ?? 0) + 1;
  const ask = s.focusAsks;
  void focusIsEditable(tab.page).then((editable) => {
    if (s.focusAsks !== ask || s.watch?.tab !== tab || !room.controls(s.info.id, tab)) return;
    room.send(s.info.id, { t: 'focus', tab: tab.number, editable });
  });
}

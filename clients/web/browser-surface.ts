/**
 * The browser surface in the takeover: attaches this connection to one tab of the profile,
 * draws the role the server pushes (take control / release control), the page's own history
 * arrows, the picker, the picture and its states, and sends the controller's gestures and keys.
 * Every call the desktop makes to its shell is a socket message here: attach, detach, resize,
 * control, nav, input.
 */
import { speakerIcon } from './icons.js';
import { FRAME_KIND_AUDIO, FRAME_KIND_BROWSER, FRAME_OFF_ID, type ServerMessage, type InputEvent as PageInput } from '../../src/shared/protocol.js';
import { LINK_WORDS, NOT_SENT, type Connection } from './connection.js';
import { fill, h } from './dom.js';
import { FrameRenderer } from './frames/renderer.js';
import { Gestures } from './input.js';
import { KeySink } from './keys.js';
import { RESIZE_SETTLE_MS } from './limits.js';
import { TabPicker } from './picker.js';
import { HandOffBar } from './handoff-bar.js';
import { PageSound } from './sound.js';
import { FileChooserPrompt } from './file-chooser.js';
import type { Ask, HandOffs } from './handoffs.js';
import type { Tabs } from './tabs.js';
import type { Takeover, TakeoverSurface } from './takeover.js';

export interface View {
  tab: number; pageId: string; profile: string; you: number; controller: number | null;
  width: number; height: number; title: string; url: string;
  /** The id this tab's frames carry in their header, when the server names it. */
  frame?: number;
  /** Set while an agent records the tab: the page has the video's layout meanwhile. */
  recording?: { by: string; width: number; height: number; message: string };
}

export type Phase = 'closed' | 'opening' | 'live' | 'failed';

/** The takeover's own background, which the bars around a fitted picture are drawn in. */
const STAGE_BACKGROUND = '#0b0c0f';

export class BrowserSurface implements TakeoverSurface {
  readonly kind = 'browser';
  readonly nav: HTMLElement;
  readonly actions: HTMLElement;
  readonly body: HTMLElement;
  phase: Phase = 'closed';
  view: View | null = null;
  private history = { back: false, forward: false };
  /** The page id asked for (a show, the picker), kept for a re-attach after a reconnect. */
  private wanted: string | undefined;
  private failure = '';
  private box = { w: 0, h: 0 };
  /** The surface size the server was last told (by the attach or a resize): the page's layout follows it. */
  private told = { w: 0, h: 0 };
  private resizeTimer: number | undefined;
  private nextId = 1;
  private attachId = 0;
  private readonly renderer = new FrameRenderer();
  private readonly keys: KeySink;
  private readonly picker: TabPicker;
  private readonly back: HTMLButtonElement;
  private readonly forward: HTMLButtonElement;
  private readonly role: HTMLElement;
  private readonly control: HTMLButtonElement;
  private readonly retry: HTMLButtonElement;
  private readonly keyboard: HTMLButtonElement;
  /** The speaker mark: the page's sound here, and this client's mute of it. */
  private readonly speaker: HTMLButtonElement;
  readonly sound = new PageSound();
  private readonly state: HTMLElement;
  private readonly askBar: HandOffBar;
  private readonly chooser: FileChooserPrompt;
  /** The hand-off this takeover was opened for (its card's Open): named on the bar even on another tab. */
  private openedFor: Ask | null = null;
  /** Called when what this surface shows changed (the strip's show / hide follow it). */
  onChange: () => void = () => {};

  constructor(private readonly conn: Connection, private readonly tabs: Tabs, private readonly takeover: Takeover, private readonly seat: string | null, private readonly handoffs: HandOffs) {
    this.askBar = new HandOffBar(handoffs, () => this.takeover.lower());
    this.back = h('button', { type: 'button', class: 'bar-arrow', 'aria-label': 'back', onclick: () => this.navigate('back') }, '‹');
    this.forward = h('button', { type: 'button', class: 'bar-arrow', 'aria-label': 'forward', onclick: () => this.navigate('forward') }, '›');
    this.picker = new TabPicker(tabs, (pageId) => this.open(pageId));
    this.nav = h('div', { class: 'bar-group' }, this.back, this.forward, this.picker.el);
    this.role = h('span', { class: 'bar-role', role: 'status' });
    this.keyboard = h('button', { type: 'button', class: 'bar-keyboard', 'aria-label': 'type into the page', onclick: () => { this.keys.setEditable(true); this.takeover.keysToPage(); } }, '⌨');
    this.control = h('button', { type: 'button', class: 'bar-control', onclick: () => this.toggleControl() });
    this.retry = h('button', { type: 'button', class: 'bar-retry', hidden: true, onclick: () => this.attach() }, 'try again');
    this.speaker = h('button', { type: 'button', class: 'bar-sound', onclick: () => { this.sound.setMuted(!this.sound.muted); this.render(); } });
    this.sound.onHeard = () => this.render();
    this.actions = h('div', { class: 'bar-group' }, this.role, this.speaker, this.keyboard, this.retry, this.control);
    this.keys = new KeySink({
      controlling: () => this.controlling(),
      send: (ev) => this.input(ev),
      refused: () => this.watcherTried(),
      tooLong: (s) => this.takeover.say(s),
      toBar: () => this.takeover.chordFromPage(),
      nav: (dir) => this.navigate(dir),
    });
    this.state = h('div', { class: 'surface-state', role: 'status', 'aria-live': 'polite' });
    this.chooser = new FileChooserPrompt(conn, {
      shown: () => (this.takeover.shown === this && this.view ? { pageId: this.view.pageId, controlling: this.controlling() } : null),
      say: (s, tone) => this.takeover.say(s, tone),
    });
    this.body = h('div', { class: 'surface', 'data-phase': 'closed' }, this.renderer.canvas, this.keys.el, this.state, this.chooser.el);
    new Gestures(this.renderer.canvas, {
      controlling: () => this.controlling(),
      send: (ev) => this.input(ev),
      picture: () => ({ w: this.renderer.picW, h: this.renderer.picH }),
      refused: () => this.watcherTried(),
      pressed: () => this.takeover.keysToPage(),
    });
    this.renderer.onStats = () => this.render();
    this.renderer.onBehind = () => this.conn.send({ t: 'keyframe' });
    new ResizeObserver(() => this.measure()).observe(this.body);
    conn.onBinary(FRAME_KIND_BROWSER, (buf) => this.frame(buf));
    conn.onBinary(FRAME_KIND_AUDIO, (buf) => this.sound.push(buf));
    conn.onMessage((m) => this.message(m));
    conn.onState((s) => {
      if (this.phase === 'closed') return;
      if (s === 'open') this.attach();
      // The page stays as it was (its ask stays answerable, to say Not sent); the picture says why it stands still.
      else if (s === 'down' || s === 'ended') this.render();
    });
    // Draws now, and again whenever the parked asks change.
    handoffs.onChange(() => this.render());
  }

  /** Raises the takeover on `pageId` (else the profile's first tab). */
  open(pageId?: string): void {
    this.wanted = pageId;
    if (this.takeover.shown !== this) {
      this.takeover.raise(this, this.title());
      this.takeover.askSlot.replaceChildren(this.askBar.el);
    }
    this.attach();
    this.onChange();
  }

  /** A hand-off card's Open: raises the page the ask named, by its page id. */
  openAsk(ask: Ask): void {
    this.openedFor = ask;
    this.open(ask.pageId);
  }

  /** The ask the bar carries: the one parked on the page up, else the one this takeover was opened for. */
  private currentAsk(): Ask | null {
    const here = this.handoffs.onPage(this.shownPageId());
    if (here) return here;
    const opened = this.openedFor;
    return opened && this.handoffs.asks.some((a) => a.id === opened.id) ? opened : null;
  }

  /** The page id this page shows, while the takeover is up on this surface. */
  shownPageId(): string | null {
    if (this.takeover.shown !== this) return null;
    return this.view?.pageId ?? this.wanted ?? null;
  }

  takeKeys(): boolean {
    if (this.phase === 'failed') return false;
    this.keys.focus();
    return this.keys.focused;
  }

  lowered(): void {
    if (this.phase === 'closed') return;
    // The layer is already down, so the ask is read from what this surface showed.
    const ask = this.handoffs.onPage(this.view?.pageId ?? this.wanted ?? null) ?? this.handoffs.asks.find((a) => a.id === this.openedFor?.id);
    if (ask) this.handoffs.lowered(ask);
    this.conn.send({ t: 'detach' });
    this.openedFor = null;
    this.phase = 'closed';
    this.view = null;
    this.sound.show(undefined);
    this.wanted = undefined;
    this.renderer.reset();
    this.render();
    this.onChange();
  }

  controlling(): boolean {
    return this.phase === 'live' && this.view !== null && this.view.controller === this.view.you;
  }

  private attach(): void {
    this.phase = 'opening';
    this.failure = '';
    this.view = null;
    this.sound.show(undefined);
    this.renderer.reset();
    this.measure();
    this.render();
    this.attachId = this.nextId++;
    this.told = { ...this.box };
    const sent = this.conn.send({
      t: 'attach', ...(this.wanted ? { pageId: this.wanted } : {}), ...this.seatFor(this.wanted),
      w: this.box.w, h: this.box.h, id: this.attachId,
    });
    if (!sent) this.render();
  }

  /**
   * The seat an attach names: the wanted page's owner (its seat's project picks the profile, which
   * may be another of the org's than this page's own), else this page's own seat.
   */
  private seatFor(pageId: string | undefined): { seat?: string } {
    const owner = pageId ? this.tabs.allRows().find((t) => t.pageId === pageId)?.owner ?? this.handoffs.onPage(pageId)?.seat : undefined;
    const seat = owner ?? this.seat;
    return seat ? { seat } : {};
  }

  private message(m: ServerMessage): void {
    if (this.phase === 'closed') return;
    switch (m.t) {
      case 'view': {
        const v = m as unknown as View;
        const first = this.phase !== 'live' || this.view?.pageId !== v.pageId;
        const roleMoved = this.view?.controller !== v.controller;
        const wasRecorded = !first && this.view?.recording !== undefined;
        this.view = v;
        this.sound.show(v.frame);
        if (roleMoved) this.takeover.quiet();
        // A recording lays the page out at the video's size: the person is told why the picture has bars, and when it ends.
        if (v.recording && !wasRecorded) this.takeover.say(v.recording.message, 'plain');
        else if (!v.recording && wasRecorded) this.takeover.say('The recording ended: the page has your layout again.', 'plain');
        this.wanted = v.pageId;
        this.phase = 'live';
        // The surface may have changed size while it opened (the bar took a hand-off's rows): the layout follows it now.
        if (first && (this.box.w !== this.told.w || this.box.h !== this.told.h)) this.tellSize();
        if (first) this.onChange();
        break;
      }
      case 'history': {
        const hm = m as unknown as { tab: number; back: boolean; forward: boolean };
        if (this.view && hm.tab !== this.view.tab) return;
        this.history = { back: hm.back, forward: hm.forward };
        break;
      }
      case 'focus': {
        const f = m as unknown as { tab: number; editable: boolean };
        if (!this.view || f.tab !== this.view.tab) return;
        this.keys.setEditable(f.editable === true);
        if (f.editable && this.takeover.shown === this) this.takeover.keysToPage();
        return;
      }
      case 'copied': {
        const c = m as unknown as { tab: number; text: string };
        if (!this.view || c.tab !== this.view.tab || typeof c.text !== 'string') return;
        navigator.clipboard.writeText(c.text).catch(() => this.takeover.say('The page\'s text was copied, but this browser would not let forge put it on your clipboard.'));
        return;
      }
      case 'gone': {
        const g = m as unknown as { tab: number; message: string };
        if (this.view && g.tab !== this.view.tab) return;
        this.fail(g.message);
        break;
      }
      case 'error': {
        const e = m as unknown as { message: string; for?: string; id?: number };
        if (e.for === 'attach' && (e.id === undefined || e.id === this.attachId)) this.fail(e.message);
        else if (e.for === 'attach' || e.for === 'detach' || e.for === 'tabs') return;
        else this.takeover.say(e.message);
        break;
      }
      default: return;
    }
    this.render();
  }

  private frame(buf: ArrayBuffer): void {
    if (this.phase !== 'live' && this.phase !== 'opening') return;
    // A frame of the tab watched before a re-attach is not this picture.
    const id = new DataView(buf).getUint32(FRAME_OFF_ID, true);
    if (this.view?.frame !== undefined && id !== this.view.frame) return;
    this.renderer.push(buf);
  }

  private fail(sentence: string): void {
    this.phase = 'failed';
    this.failure = sentence;
    this.renderer.reset();
    this.render();
    // A failed page has no picture to hold the keys: the bar takes them.
    if (this.takeover.shown === this) this.takeover.keysToBar();
  }

  private toggleControl(): void {
    if (this.phase !== 'live') return;
    // The press that takes control is the gesture the browser wants before any sound.
    if (!this.controlling()) this.sound.unlock();
    if (!this.conn.send({ t: 'control', take: !this.controlling(), id: this.nextId++ })) {
      this.takeover.say(NOT_SENT);
    }
  }

  private navigate(dir: 'back' | 'forward'): void {
    if (!this.controlling()) { this.watcherTried(); return; }
    if (!this.history[dir]) return;
    this.conn.send({ t: 'nav', dir, id: this.nextId++ });
  }

  private input(ev: PageInput): void {
    this.conn.send({ t: 'input', ev });
  }

  private watcherTried(): void {
    if (this.phase === 'live') this.takeover.say('You are watching: take control to drive the page.', 'plain');
  }

  private measure(): void {
    const r = this.body.getBoundingClientRect();
    const w = Math.round(r.width);
    const hh = Math.round(r.height);
    if (w === this.box.w && hh === this.box.h) return;
    this.box = { w, h: hh };
    this.renderer.setBox(w, hh, STAGE_BACKGROUND);
    if (this.phase !== 'live') return;
    this.tellSize();
  }

  /** Tells the server the surface's size once it has held still RESIZE_SETTLE_MS (an empty box tells nothing). */
  private tellSize(): void {
    clearTimeout(this.resizeTimer);
    if (this.box.w === 0 || this.box.h === 0) return;
    this.resizeTimer = window.setTimeout(() => {
      if (this.phase !== 'live') return;
      this.told = { ...this.box };
      this.conn.send({ t: 'resize', w: this.box.w, h: this.box.h });
    }, RESIZE_SETTLE_MS);
  }

  private title(): string {
    const ask = this.takeover.shown === this ? this.handoffs.onPage(this.shownPageId()) : undefined;
    if (ask) return `browser hand-off · tab ${ask.tab}`;
    return this.view ? `the browser · ${this.view.profile}` : 'the browser';
  }

  private render(): void {
    const v = this.view;
    const live = this.phase === 'live';
    const mine = this.controlling();
    this.body.dataset.phase = this.phase;
    this.back.disabled = !(mine && this.history.back);
    this.forward.disabled = !(mine && this.history.forward);
    this.back.title = mine ? 'back' : 'only the controller moves through the page\'s history';
    this.forward.title = this.back.title;
    this.picker.setCurrent(v ? { number: v.tab, pageId: v.pageId, profile: v.profile } : null);
    this.control.hidden = this.phase === 'failed';
    this.control.disabled = !live || !this.conn.mayControl;
    this.control.title = this.conn.mayControl ? '' : 'this link is for watching: it cannot take control';
    this.control.textContent = mine ? 'release control' : 'take control';
    this.control.setAttribute('aria-pressed', String(mine));
    this.retry.hidden = this.phase !== 'failed';
    this.keyboard.hidden = !mine;
    this.speaker.hidden = !mine;
    const icon = this.sound.muted ? 'muted' : this.sound.heard ? 'playing' : 'silent';
    if (this.speaker.firstElementChild?.getAttribute('data-icon') !== `speaker-${icon}`) this.speaker.replaceChildren(speakerIcon(icon));
    this.speaker.setAttribute('aria-pressed', String(this.sound.muted));
    this.speaker.setAttribute('aria-label', this.sound.muted ? 'unmute the page' : 'mute the page');
    this.speaker.title = this.sound.muted ? 'the page\'s sound is muted here' : this.sound.heard ? 'the page plays sound' : 'the page is silent';
    this.speaker.dataset.heard = String(this.sound.heard);
    this.speaker.dataset.played = String(this.sound.counts.played);
    const role = !live || !v ? '' : mine ? 'you control the page' : v.controller === null ? 'watching · nobody controls the page' : 'watching · another viewer controls the page';
    this.role.textContent = role;
    this.role.dataset.role = !live || !v ? '' : mine ? 'controller' : 'watcher';
    if (this.takeover.shown === this) {
      this.takeover.setTitle(this.title());
      const ask = this.currentAsk();
      // Answers only while the page the hand-off named is up (live, or failed with its host gone).
      const up = ask !== null && ask.pageId === this.shownPageId() && (this.phase === 'live' || this.phase === 'failed');
      this.askBar.show(ask, up);
    }
    this.renderState();
    this.chooser.sync();
  }

  private renderState(): void {
    let words = '';
    if (this.conn.state !== 'open' && this.phase !== 'closed') words = this.conn.state === 'ended' ? this.conn.endedReason : LINK_WORDS.down;
    else if (this.phase === 'opening') words = 'opening the browser…';
    else if (this.phase === 'failed') words = this.failure;
    else if (this.phase === 'live' && !this.renderer.pictured) words = 'opening the browser…';
    fill(this.state, words);
    this.state.hidden = words === '';
  }
}

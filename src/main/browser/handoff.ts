/**
 * Browser hand-offs: an agent parks an ask on one of its own tabs ("please sign in here") and waits;
 * a person answers Done, Not now or feedback, with an optional note. The tab is held while the ask
 * is parked, so neither the idle clock nor a sweep takes it. A signed link opens just that page.
 */
import { randomBytes, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ClientMessageOf, ServerMessage } from '../../shared/protocol.js';
import { ForgeError, isForgeError } from '../../shared/errors.js';
import type { SessionContext } from '../mcp/context.js';
import { CLOSE_FORBIDDEN, type ViewerHub, type ViewerInfo } from '../viewers.js';
import { seatAllowed, tabAllowed } from '../../shared/grants.js';
import { signLink } from '../../workers/relay/links.js';
import type { ProfileBrowser } from './profile.js';
import type { Tab } from './tabs.js';
import { clip } from '../../shared/activity.js';

/** A person's answer as the activity line says it. */
const ANSWER_WORDS = { done: 'Done', not_now: 'Not now', feedback: 'feedback' } as const;
import { pageState } from './tools/page-state.js';

/** How often a waiting hand-off tells the agent it is still waiting (MCP progress), ms. */
export const HANDOFF_PROGRESS_PERIOD_MS = 10_000;
/** An opened link holds its tab while its person's page sends heartbeats at least this often, ms. */
export const HANDOFF_HEARTBEAT_HOLD_MS = 90_000;
/** How often held hand-offs are checked for a lapsed link or heartbeat, ms. */
const HOLD_CHECK_PERIOD_MS = 5_000;
/** Longest note a person may send with an answer, characters. */
export const HANDOFF_NOTE_MAX_CHARS = 8_000;

/** What a hand-off link's socket is told once its hand-off is over. */
export const LINK_USED_SENTENCE = 'this hand-off is over (answered or withdrawn); its link opens nothing more';

export type HandOffAnswer = 'done' | 'not_now' | 'feedback';

interface HandOff {
  id: string;
  seat: string;
  profileKey: string;
  pageId: string;
  tabNumber: number;
  message: string;
  link: string;
  linkExp: number;
  openedAt?: number;
  lastBeat?: number;
  settle: (a: { answer: HandOffAnswer; note: string }) => void;
  /** Whether the call that parked it is gone (its session ended): its answer would reach nobody. */
  orphaned: () => boolean;
  /** Ends the ask unanswered: a newer ask on its tab takes its place. */
  withdraw: () => void;
}

/** `linkKey`: this process's private key, signing its links. `node`: this node's name on a cluster, which its hand-offs' ids carry so that their links open on every node. */
export interface HandOffDeps { profile(key: string): ProfileBrowser; baseUrl(): string; linkKey: KeyObject; node?: string }

export class BrowserHandOffs {
  private asks = new Map<string, HandOff>();
  private timer: NodeJS.Timeout;

  constructor(private readonly hub: ViewerHub, private readonly deps: HandOffDeps) {
    this.timer = setInterval(() => this.checkHolds(), HOLD_CHECK_PERIOD_MS);
    this.timer.unref();
  }

  attachViewers(): void {
    this.hub.on('handoffs', (v) => { this.hub.send(v.id, this.listFor(v)); });
    this.hub.on('answer', (v, m) => this.answer(v, m));
    this.hub.on('heartbeat', (v) => { this.beat(v); });
    this.hub.onOpen((v) => { this.hub.send(v.id, this.listFor(v)); });
    // A link is a capability for one parked hand-off: once that is answered, the link opens nothing.
    this.hub.admit((v) => (v.handoff !== undefined && !this.asks.has(v.handoff) ? LINK_USED_SENTENCE : undefined));
  }

  /** Whether a viewer's credential covers a hand-off: its own link, or a person's token for its seat or tab. */
  private covers(v: ViewerInfo, h: HandOff): boolean {
    return v.handoff !== undefined ? v.handoff === h.id : seatAllowed(v.grant, h.seat) || tabAllowed(v.grant, h.pageId, h.seat);
  }

  /** The hand-off a link viewer may see: its page. */
  pageOf(id: string): { profileKey: string; pageId: string; tabNumber: number } | undefined {
    const h = this.asks.get(id);
    return h ? { profileKey: h.profileKey, pageId: h.pageId, tabNumber: h.tabNumber } : undefined;
  }

  /** Whether a parked hand-off names this page id. */
  names(pageId: string): boolean {
    for (const h of this.asks.values()) if (h.pageId === pageId) return true;
    return false;
  }

  /** A link viewer attached to the hand-off's page: the hold now lasts while it sends heartbeats. */
  opened(id: string): void {
    const h = this.asks.get(id);
    if (!h) return;
    h.openedAt ??= Date.now();
    h.lastBeat = Date.now();
    this.hold(h, true);
  }

  private listFor(v: ViewerInfo): ServerMessage {
    const asks = [...this.asks.values()].filter((h) => this.covers(v, h));
    return { t: 'handoffs', asks: asks.map((h) => ({ id: h.id, seat: h.seat, profile: h.profileKey, pageId: h.pageId, tab: h.tabNumber, message: h.message })) };
  }

  private push(): void {
    for (const v of this.hub.viewers.values()) this.hub.send(v.id, this.listFor(v));
  }

  private tabOf(h: HandOff): Tab | undefined {
    return this.deps.profile(h.profileKey).tabs.get(h.pageId);
  }

  private hold(h: HandOff, on: boolean): void {
    const tab = this.tabOf(h);
    if (!tab) return;
    if (on) tab.heldBy = h.id;
    else if (tab.heldBy === h.id) tab.heldBy = undefined;
    const p = this.deps.profile(h.profileKey);
    p.lastActivity = Date.now();
  }

  private checkHolds(): void {
    const now = Date.now();
    for (const h of this.asks.values()) {
      const lapsed = h.openedAt ? now - (h.lastBeat ?? h.openedAt) > HANDOFF_HEARTBEAT_HOLD_MS : now > h.linkExp * 1000;
      if (lapsed) this.hold(h, false);
    }
  }

  private beat(v: ViewerInfo): void {
    for (const h of this.asks.values()) {
      if (this.covers(v, h)) { h.lastBeat = Date.now(); if (h.openedAt) this.hold(h, true); }
    }
  }

  private answer(v: ViewerInfo, m: ClientMessageOf<'answer'>): void {
    const id = m.handoff;
    if (v.handoff && v.handoff !== id) throw new ForgeError('auth', 'this link answers its own hand-off only');
    const h = this.asks.get(id);
    if (!h || !this.covers(v, h)) throw new ForgeError('hand_off', `the hand-off ${id.slice(0, 40) || '(none named)'} is not waiting any more`);
    const note = m.note?.trim() ?? '';
    if (note.length > HANDOFF_NOTE_MAX_CHARS) throw new ForgeError('bad_request', `a note is limited to ${HANDOFF_NOTE_MAX_CHARS} characters; nothing was sent`);
    if (m.answer === 'feedback' && !note) throw new ForgeError('bad_request', 'send feedback needs words in the note');
    h.settle({ answer: m.answer, note });
    this.hub.acted(v, h.seat, 'answered a hand-off', `tab ${h.tabNumber}`, ANSWER_WORDS[m.answer] + (note ? `: ${clip(note)}` : ''));
    this.hub.send(v.id, { t: 'answered', handoff: id, answer: m.answer, ...(m.id !== undefined ? { id: m.id } : {}) });
  }

  /** The agent's call: parks the ask and waits for the person's answer. */
  async park(ctx: SessionContext, pageId: string, message: string, progress: (n: number, text: string) => Promise<void>, signal: AbortSignal): Promise<{ answer: HandOffAnswer; note: string; tab: Tab }> {
    const p = this.deps.profile(ctx.profileKey);
    const seat = ctx.seat.key;
    const tab = p.tabs.get(pageId);
    if (!tab || tab.owner !== seat) {
      const own = p.tabs.ownedBy(seat);
      const tabs = own.length ? own.map((t) => `tab ${t.number} (${t.pageId}) ${t.title || t.page.url()}`).join('; ') : 'you have no tab open';
      throw new ForgeError('tab_not_open', `the page ${pageId} is not one of your tabs; hand off one of them by its page id as browser_tabs prints it — ${tabs}`);
    }
    // One ask per tab: a call still waiting on this tab keeps it; an ask whose call is gone gives way.
    for (const other of [...this.asks.values()]) {
      if (other.profileKey !== p.key || other.pageId !== pageId) continue;
      if (!other.orphaned()) {
        throw new ForgeError('hand_off', `tab ${tab.number} (${pageId}) already waits on a hand-off you asked (${JSON.stringify(clip(other.message))}); its answer comes to that call, so wait for it rather than asking twice`);
      }
      other.withdraw();
    }
    // The page as the agent hands it over: the answer says what the person changed since.
    await p.call(seat, 'browser_hand_off', (t) => pageState(t, true, p), { tab, allowChooser: true }).catch(() => undefined);
    const random = randomBytes(5).toString('hex');
    const id = this.deps.node === undefined ? `ho-${random}` : `ho-${random}-${this.deps.node}`;
    const { token, exp } = signLink(this.deps.linkKey, id);
    let settle!: HandOff['settle'];
    let withdraw!: HandOff['withdraw'];
    const answered = new Promise<{ answer: HandOffAnswer; note: string }>((r, reject) => {
      settle = r;
      withdraw = () => reject(new ForgeError('hand_off', 'a newer hand-off of the same tab took the place of this one'));
    });
    const h: HandOff = { id, seat, profileKey: p.key, pageId, tabNumber: tab.number, message, link: `${this.deps.baseUrl()}/handoff/${token}`, linkExp: exp, settle, withdraw, orphaned: () => ctx.ended === true };
    this.asks.set(id, h);
    this.hold(h, true);
    this.push();
    ctx.log.info({ tool: 'browser_hand_off', handoff: id, pageId, tab: tab.number }, 'hand-off parked');
    let n = 0;
    const tick = setInterval(() => { void progress(++n, `waiting for the person on tab ${tab.number} (${pageId})`).catch(() => undefined); }, HANDOFF_PROGRESS_PERIOD_MS);
    void progress(0, `parked: the person can open the page from the strip or at ${h.link}`).catch(() => undefined);
    // A cancelled call withdraws the ask; a session that ended leaves it parked for the person, and its tab goes when it resolves.
    const abort = new Promise<never>((_, reject) => signal.addEventListener('abort', () => { if (!ctx.ended) reject(new ForgeError('hand_off', 'the hand-off was withdrawn')); }, { once: true }));
    try {
      const a = await Promise.race([answered, abort]);
      return { ...a, tab };
    } finally {
      clearInterval(tick);
      this.asks.delete(id);
      this.hold(h, false);
      // The link dies with its answer: its sockets are closed now, and any control they held goes with them.
      this.hub.closeWhere((v) => v.handoff === id, CLOSE_FORBIDDEN, LINK_USED_SENTENCE);
      this.push();
      p.announce();
      void p.askResolved(tab).catch(() => undefined);
    }
  }

  /**
   * What the person changed while they held the tab: its URL and title, and the snapshot's changes
   * since the hand-off (the whole snapshot on a new document). Empty when the tab cannot be read now.
   */
  private async leftBehind(ctx: SessionContext, tab: Tab): Promise<string> {
    const p = this.deps.profile(ctx.profileKey);
    if (tab.owner !== ctx.seat.key) return '';
    try {
      const r = await p.call(ctx.seat.key, 'browser_hand_off', (t) => pageState(t, true, p), { tab, allowChooser: true });
      return r.dialogOpened ? '' : r.value ?? '';
    } catch {
      return '';
    }
  }

  linkOf(id: string): string | undefined { return this.asks.get(id)?.link; }

  stop(): void { clearInterval(this.timer); }

  registerTool(server: McpServer, ctx: SessionContext): void {
    server.registerTool('browser_hand_off', {
      description: 'Hand one of your tabs to your person and wait for their answer: done, not_now or feedback (with their note). Use it whenever the page needs them — to sign in, approve, pay, or enter a password, passcode or one-time code: never ask for a secret in text, hand them the page instead. Name the tab by its page id as browser_tabs prints it.',
      inputSchema: z.object({ page_id: z.string().describe('The page id of one of your tabs (p-…)'), message: z.string().min(1).max(2000).describe('Words for the person: what to do on the page') }).strict(),
    }, async (args: { page_id: string; message: string }, extra) => {
      const token = extra._meta?.progressToken;
      const progress = async (n: number, text: string): Promise<void> => {
        if (token === undefined) return;
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: n, message: text } });
      };
      // A restart that took the seat's tabs leads this answer too, as it leads every browser call's.
      const restart = this.deps.profile(ctx.profileKey).takeRestartNotice(ctx.seat.key);
      const lead = (text: string): string => (restart ? `Note: ${restart}.\n${text}` : text);
      try {
        const r = await this.park(ctx, args.page_id, args.message, progress, extra.signal);
        const said = r.note ? ` Their note: ${JSON.stringify(r.note)}.` : '';
        const left = await this.leftBehind(ctx, r.tab);
        const text = r.answer === 'done'
          ? `The person answered Done on tab ${r.tab.number} (${r.tab.pageId}).${said} ${left ? 'The page as they left it, against the page you handed them:' : 'The page is as they left it: take a browser_snapshot before going on.'}`
          : r.answer === 'not_now'
            ? `The person answered Not now on tab ${r.tab.number} (${r.tab.pageId}).${said} ${left ? 'The page now, against the page you handed them:' : 'The page is as it was; ask again later if you still need them on it.'}`
            : `The person says something is off on tab ${r.tab.number} (${r.tab.pageId}): ${JSON.stringify(r.note)}. Address it, then hand the page off again for another answer.`;
        return { content: [{ type: 'text' as const, text: lead(left ? `${text}\n${left}` : text) }], structuredContent: { answer: r.answer, note: r.note, page_id: r.tab.pageId } };
      } catch (e) {
        return { content: [{ type: 'text' as const, text: lead(isForgeError(e) ? e.message : String((e as Error).message)) }], isError: true };
      }
    });
  }
}

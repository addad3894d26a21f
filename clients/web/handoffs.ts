/**
 * Parked browser hand-offs as the server pushes them, and this page's answers. The note a person
 * writes is kept per ask until an answer takes it, across lowering and raising the takeover; an
 * answer the connection did not take says so and keeps the words, and the ask stays parked.
 */
import { NOT_SENT, type Connection } from './connection.js';
import type { HandOffCard } from '../../src/shared/protocol.js';

export type Ask = HandOffCard;
export type Answer = 'done' | 'not_now' | 'feedback';

/** The sentence for an answer the socket could not carry (the refusal tone). */

export class HandOffs {
  asks: Ask[] = [];
  /** The note line's words per ask, held until an answer leaves with them. */
  readonly notes = new Map<string, string>();
  /**
   * The chat's draft: a lowered takeover hands its note here, and the card says so. While the
   * ask it came from is parked (`draftAsk`) the draft and the note are the same words, so a
   * raise shows them again and an answer takes them away; an ask that ends without this page's
   * answer leaves them in the draft, free to edit.
   */
  draft = '';
  draftAsk: string | null = null;
  private listeners = new Set<() => void>();
  private nextId = 1;
  private pending = new Map<number, (ok: boolean, message?: string) => void>();

  constructor(private readonly conn: Connection) {
    conn.onState((s) => {
      if (s === 'open') conn.send({ t: 'handoffs' });
      // An answer in flight when the socket dropped was not taken as far as this page knows.
      else for (const id of [...this.pending.keys()]) this.settle(id, false, NOT_SENT);
    });
    conn.onMessage((m) => {
      if (m.t === 'handoffs') {
        this.asks = m.asks.slice();
        for (const id of [...this.notes.keys()]) if (!this.asks.some((a) => a.id === id)) this.notes.delete(id);
        if (this.draftAsk && !this.asks.some((a) => a.id === this.draftAsk)) this.draftAsk = null;
        this.emit();
      } else if (m.t === 'answered') {
        if (m.id !== undefined) this.settle(m.id, true);
      } else if (m.t === 'error' && m.for === 'answer') {
        if (m.id !== undefined) this.settle(m.id, false, m.message);
      }
    });
  }

  onChange(cb: () => void): void {
    this.listeners.add(cb);
    cb();
  }

  /** The ask parked on `pageId`, if any. */
  onPage(pageId: string | null): Ask | undefined {
    return pageId ? this.asks.find((a) => a.pageId === pageId) : undefined;
  }

  note(id: string): string { return this.notes.get(id) ?? ''; }
  setNote(id: string, words: string): void {
    this.notes.set(id, words);
    if (this.draftAsk === id) this.draft = words;
  }

  /** The takeover lowered with `ask` on its bar: its note's words go to the chat's draft. */
  lowered(ask: Ask): void {
    const words = this.note(ask.id);
    if (!words.trim()) return;
    this.draft = words;
    this.draftAsk = ask.id;
    this.emit();
  }

  /** The person edits the draft itself (only while no parked ask holds it). */
  setDraft(words: string): void {
    if (this.draftAsk) return;
    this.draft = words;
  }

  /**
   * Sends an answer with the note. Resolves with null once the server took it (the line clears),
   * or with the sentence to show (the words stay, the ask stays parked).
   */
  answer(ask: Ask, answer: Answer): Promise<string | null> {
    const note = this.note(ask.id).trim();
    const id = this.nextId++;
    if (!this.conn.send({ t: 'answer', handoff: ask.id, answer, note, id })) return Promise.resolve(NOT_SENT);
    return new Promise((resolve) => {
      this.pending.set(id, (ok, message) => {
        if (ok) {
          // The words left for the agent: the line clears and the draft gets nothing.
          this.notes.delete(ask.id);
          if (this.draftAsk === ask.id) { this.draft = ''; this.draftAsk = null; }
        }
        resolve(ok ? null : message ?? NOT_SENT);
      });
    });
  }

  private settle(id: number, ok: boolean, message?: string): void {
    const cb = this.pending.get(id);
    if (!cb) return;
    this.pending.delete(id);
    cb(ok, message);
  }

  private emit(): void { for (const cb of this.listeners) cb(); }
}

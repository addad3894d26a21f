/**
 * The chat's draft: the composer band under the conversation. A lowered takeover hands its note
 * here; while the ask it came from is parked the composer is behind that ask's card (the words
 * answer with it), and once the ask has ended without them the words are the person's to edit.
 * forge has no chat of its own, so the band shows only once a note has come to it.
 */
import { h } from './dom.js';
import type { HandOffs } from './handoffs.js';

export class ChatDraft {
  readonly el: HTMLElement;
  private readonly field: HTMLTextAreaElement;
  private readonly hint: HTMLElement;
  /** A note came here while the page was open: the band stays, so its words keep a place. */
  private used = false;

  constructor(private readonly handoffs: HandOffs) {
    this.field = h('textarea', { class: 'chat-draft', rows: 2, 'aria-label': 'the chat\'s draft', placeholder: 'the chat\'s draft' });
    this.field.addEventListener('input', () => this.handoffs.setDraft(this.field.value));
    this.hint = h('p', { class: 'draft-hint' });
    this.el = h('div', { class: 'composer', hidden: true }, this.hint, this.field);
    handoffs.onChange(() => this.render());
  }

  render(): void {
    const held = this.handoffs.draftAsk !== null;
    if (this.handoffs.draft) this.used = true;
    this.el.hidden = !this.used;
    if (this.field.value !== this.handoffs.draft) this.field.value = this.handoffs.draft;
    this.field.readOnly = held;
    this.hint.textContent = held ? 'behind the hand-off\'s card until it is answered' : '';
    this.hint.hidden = !held;
  }
}

/**
 * A parked hand-off on the takeover's bar: the agent's words under the bar row, the note line,
 * and the answers - Done and Not now while the page is up on the tab the hand-off named, send
 * feedback once the note has words. The note line is drawn in every phase and keeps its words.
 */
import { h } from './dom.js';
import type { Answer, Ask, HandOffs } from './handoffs.js';

export class HandOffBar {
  readonly el: HTMLElement;
  private readonly words: HTMLElement;
  private readonly note: HTMLInputElement;
  private readonly done: HTMLButtonElement;
  private readonly notNow: HTMLButtonElement;
  private readonly feedback: HTMLButtonElement;
  private readonly line: HTMLElement;
  private ask: Ask | null = null;
  private answerable = false;
  private sending = false;

  /** `answered` runs once the server took an answer (the takeover lowers). */
  constructor(private readonly handoffs: HandOffs, private readonly answered: () => void) {
    this.words = h('p', { class: 'ask-words' });
    this.note = h('input', { class: 'ask-note', type: 'text', 'aria-label': 'a note for the agent (optional)', placeholder: 'a note for the agent (optional)', autocomplete: 'off' });
    this.note.addEventListener('input', () => {
      if (this.ask) this.handoffs.setNote(this.ask.id, this.note.value);
      this.render();
    });
    this.note.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && this.answerable && this.note.value.trim()) { e.preventDefault(); void this.send('feedback'); }
    });
    this.done = h('button', { type: 'button', class: 'ask-done', onclick: () => void this.send('done') }, 'Done');
    this.feedback = h('button', { type: 'button', class: 'ask-feedback', onclick: () => void this.send('feedback') }, 'send feedback');
    this.notNow = h('button', { type: 'button', class: 'ask-not-now', onclick: () => void this.send('not_now') }, 'Not now');
    this.line = h('p', { class: 'ask-line', role: 'status', 'aria-live': 'polite' });
    this.el = h('div', { class: 'ask', role: 'group', 'aria-label': 'the agent\'s hand-off', hidden: true },
      this.words, this.line,
      h('div', { class: 'ask-row' }, this.note, h('div', { class: 'ask-answers' }, this.done, this.feedback, this.notNow)));
  }

  /** The ask to draw (null: none), and whether the page it named is the one up. */
  show(ask: Ask | null, answerable: boolean): void {
    if (ask?.id !== this.ask?.id) this.line.textContent = '';
    this.ask = ask;
    this.answerable = answerable;
    this.el.hidden = ask === null;
    if (ask) {
      this.words.textContent = ask.message;
      const held = this.handoffs.note(ask.id);
      if (this.note.value !== held) this.note.value = held;
    }
    this.render();
  }

  private render(): void {
    const words = this.note.value.trim() !== '';
    this.done.hidden = !this.answerable;
    this.notNow.hidden = !this.answerable;
    this.feedback.hidden = !(this.answerable && words);
    for (const b of [this.done, this.notNow, this.feedback]) b.disabled = this.sending;
  }

  private async send(answer: Answer): Promise<void> {
    const ask = this.ask;
    if (!ask || !this.answerable || this.sending) return;
    this.sending = true;
    this.line.textContent = '';
    this.render();
    const refusal = await this.handoffs.answer(ask, answer);
    this.sending = false;
    if (refusal) {
      // The words stay in the field and the ask stays parked for the retry.
      this.line.textContent = refusal;
      this.line.dataset.tone = 'refusal';
      this.render();
      return;
    }
    this.note.value = '';
    this.render();
    this.answered();
  }
}

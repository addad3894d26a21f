/**
 * The hand-off cards on the home: browser hand-off · tab N, the seat, the agent's words, and Open
 * browser, Done and Not now. While the takeover is up on the asked page, the card says so and
 * leaves the answers to the bar; a note the bar holds is named here, since the card is what shows.
 */
import { KeptElements, h } from './dom.js';
import type { Ask, HandOffs } from './handoffs.js';

export interface AskPages {
  /** The page id the takeover is up on, or null. */
  shownPageId(): string | null;
  openAsk(ask: Ask): void;
}

export class HandOffCards {
  readonly el: HTMLElement;
  private lines = new Map<string, string>();
  /** The cards by ask id: a card is redrawn only when its ask, note, answer line or whether its page is up changed. */
  private readonly cards = new KeptElements<{ a: Ask; up: boolean }>(
    ({ a }) => a.id,
    ({ a, up }) => [a, up, this.handoffs.note(a.id).trim(), this.handoffs.draftAsk === a.id, this.lines.get(a.id) ?? ''],
    ({ a, up }) => this.card(a, up));

  constructor(private readonly handoffs: HandOffs, private readonly pages: AskPages) {
    this.el = h('section', { class: 'handoff-cards', 'aria-label': 'hand-offs waiting for you' });
    handoffs.onChange(() => this.render());
  }

  render(): void {
    const shown = this.pages.shownPageId();
    // Cards are kept while what they show is unchanged: a push between a press and its release keeps the click.
    this.cards.draw(this.el, this.handoffs.asks.map((a) => ({ a, up: shown === a.pageId })));
  }

  private card(a: Ask, up: boolean): HTMLElement {
    const note = this.handoffs.note(a.id).trim();
    const answer = (kind: 'done' | 'not_now') => async () => {
      const refusal = await this.handoffs.answer(a, kind);
      if (refusal) this.lines.set(a.id, refusal); else this.lines.delete(a.id);
      this.render();
    };
    const line = this.lines.get(a.id);
    return h('article', { class: 'handoff-card', 'data-handoff': a.id, 'aria-label': `browser hand-off · tab ${a.tab}` },
      h('h2', { class: 'card-title' }, `browser hand-off · tab ${a.tab}`),
      h('p', { class: 'card-seat' }, a.seat),
      h('p', { class: 'card-words' }, a.message),
      note ? h('p', { class: 'card-note' }, this.handoffs.draftAsk === a.id
        ? `Your note went to the chat's draft and goes with your answer: “${note}”`
        : `Your note is kept for the bar: “${note}”`) : null,
      line ? h('p', { class: 'card-line', 'data-tone': 'refusal', role: 'status' }, line) : null,
      up
        ? h('p', { class: 'card-open' }, 'The browser is open over the window; answer on its bar.')
        : h('div', { class: 'card-actions' },
          h('button', { type: 'button', class: 'card-open-browser', onclick: () => this.pages.openAsk(a) }, 'Open browser'),
          h('button', { type: 'button', class: 'card-done', onclick: answer('done') }, 'Done'),
          h('button', { type: 'button', class: 'card-not-now', onclick: answer('not_now') }, 'Not now')));
  }
}

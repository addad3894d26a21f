/**
 * browser_handle_dialog's work. The answer is an action on the page: what the page's handler
 * starts once the dialog closes (a navigation, a timer) is watched for as a click's is, and a
 * dialog it raises next (a confirm whose handler alerts) holds the page before it can be read, so
 * it is watched for from before the answer and ends the answer, said with the page's header.
 */
import type { ProfileBrowser } from '../profile.js';
import { dialogOpened, type Tab } from '../tabs.js';
import { watchAction } from './action-watch.js';
import { header, pageState } from './page-state.js';

export async function answerDialog(p: ProfileBrowser, tab: Tab, accept: boolean, promptText?: string): Promise<string> {
  const held = tab.dialog!;
  let raised!: () => void;
  const next = new Promise<'dialog'>((r) => { raised = () => r('dialog'); });
  tab.dialogWaiters.add(raised);
  tab.dialog = undefined;
  try {
    let answeredBefore = false;
    const watched = watchAction(tab, 'answer', async () => {
      try {
        if (accept) await held.dialog.accept(promptText); else await held.dialog.dismiss();
      } catch {
        answeredBefore = true;
      }
    });
    watched.catch(() => undefined);
    const first = await Promise.race([watched, next]);
    // Another client answered it first: the dialog is gone either way.
    if (answeredBefore) return `The ${held.kind} dialog on tab ${tab.number} was already answered.\n${header(tab)}`;
    const done = `${accept ? 'Accepted' : 'Dismissed'} the ${held.kind} dialog ${JSON.stringify(held.message)} on tab ${tab.number} (${tab.pageId}).`;
    if (first === 'dialog') return nextDialog(tab, done);
    const state = pageState(tab, true, p);
    const after = await Promise.race([state, next]);
    if (after === 'dialog') {
      state.catch(() => undefined);
      return nextDialog(tab, [done, ...first.said].join('\n'));
    }
    return [done, ...first.said, after].join('\n');
  } finally {
    tab.dialogWaiters.delete(raised);
  }
}

function nextDialog(tab: Tab, done: string): string {
  return `${done}\nThen ${dialogOpened(tab)}\n${header(tab)}`;
}

import { describe, expect } from 'vitest';
import type { RunningServer, Agent } from './helpers/server.js';
import type { PageServer } from './helpers/pages.js';
import { hostPageClient, hostTargets } from './helpers/host-devtools.js';
import { forgeTest } from './fixtures.js';

let forge: RunningServer;
let pages: PageServer;
let a: Agent;
let other: Agent;

const page = `<title>Dialogs</title>
<button onclick="alert('plain alert')">Alert</button>
<button onclick="document.title = confirm('Delete it?') ? 'yes' : 'no'">Confirm</button>
<button onclick="document.title = 'name:' + prompt('Your name?', 'x')">Prompt</button>
<button onclick="if (confirm('Go on?')) alert('Second step')">Chain</button>
<button onclick="if (confirm('Wait?')) setTimeout(() => alert('Came later'), 30)">Later</button>
<button onclick="window.onbeforeunload = (e) => { e.preventDefault(); return 'stay'; }; document.title='armed'">Arm</button>`;

const it = forgeTest({}, { '/': page, '/next': '<title>Next</title>next page' });

it.beforeAll(async ({ forge: server, pages: served, agentFor }) => {
  forge = server;
  pages = served;
  a = await agentFor('default/proj/lead');
  other = await agentFor('default/proj/other');
  await a.call('browser_navigate', { url: pages.url });
});

async function click(name: string): Promise<string> {
  const snap = await a.call('browser_snapshot');
  const ref = new RegExp(`button "${name}" \\[ref=((?:f\\d+)?e\\d+)\\]`).exec(snap.text)![1];
  return (await a.call('browser_click', { ref })).text;
}

describe('a page dialog is held until someone answers it', () => {
  it('an alert holds the tab, every driving call is refused naming tab, kind, message and owner, and handle_dialog answers it', async () => {
    const r = await click('Alert');
    expect(r).toContain('opened an alert dialog: "plain alert"');
    const refused = await a.call('browser_snapshot');
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/tab \d+ \(p-[0-9a-f]{8}\) is held by an alert dialog: "plain alert" — the tab belongs to default\/proj\/lead/);
    const list = await a.call('browser_tabs', { action: 'list' });
    expect(list.text).toContain('alert waiting');
    const answered = await a.call('browser_handle_dialog', { accept: true });
    expect(answered.isError).toBe(false);
    expect((await a.call('browser_snapshot')).isError).toBe(false);
  });

  it('a confirm answered false reaches the page as false', async () => {
    await click('Confirm');
    const r = await a.call('browser_handle_dialog', { accept: false });
    expect(r.text).toContain('Dismissed the confirm dialog "Delete it?"');
    expect((await a.call('browser_evaluate', { function: '() => document.title' })).text).toContain('"no"');
  });

  it('a dialog the page raises as the answered one closes is in the answer, and is answered in turn', async () => {
    for (const [name, first, second] of [['Chain', 'Go on?', 'Second step'], ['Later', 'Wait?', 'Came later']]) {
      expect(await click(name)).toContain(`opened a confirm dialog: "${first}"`);
      const r = await a.call('browser_handle_dialog', { accept: true });
      expect(r.text, name).toContain(`opened an alert dialog: "${second}"`);
      const next = await a.call('browser_handle_dialog', { accept: true });
      expect(next.text, name).toContain(`Accepted the alert dialog "${second}"`);
      expect((await a.call('browser_snapshot')).isError).toBe(false);
    }
  });

  it('a prompt answered with text reaches the page', async () => {
    await click('Prompt');
    await a.call('browser_handle_dialog', { accept: true, promptText: 'Ada' });
    expect((await a.call('browser_evaluate', { function: '() => document.title' })).text).toContain('"name:Ada"');
  });

  it('a beforeunload prompt holds the tab when the page is left, and accepting it leaves', async () => {
    await click('Arm');
    const r = await a.call('browser_navigate', { url: `${pages.origin}/next` });
    expect(r.text).toContain('beforeunload dialog');
    const refused = await a.call('browser_evaluate', { function: '() => 1' });
    expect(refused.text).toContain('held by a beforeunload dialog');
    await a.call('browser_handle_dialog', { accept: true });
    const snap = await a.call('browser_snapshot');
    expect(snap.text).toContain('next page');
  });

  it('another seat has no dialog to answer, and closing the tab disposes of a held one', async () => {
    await a.call('browser_navigate', { url: pages.url });
    await click('Alert');
    const foreign = await other.call('browser_handle_dialog', { accept: true });
    expect(foreign.isError).toBe(true);
    expect(foreign.text).toBe('no dialog is waiting on your tabs');
    const closed = await a.call('browser_close');
    expect(closed.text).toMatch(/Closed tab \d+/);
    const list = await a.call('browser_tabs', { action: 'list' });
    expect(list.text).not.toContain('alert waiting');
  });
});

describe('two CDP clients on one browser', () => {
  it('a dialog another client answers first does not crash the server; handle_dialog says it was already answered', async () => {
    expect((await a.call('browser_navigate', { url: pages.url })).isError).toBe(false);
    const target = (await hostTargets(forge.stateDir)).find((t) => t.type === 'page' && t.url === pages.url)!;
    // A rival client that answers every dialog the moment it opens, racing forge's hold.
    const rival = await hostPageClient(forge.stateDir, target.id);
    await rival.send('Page.enable');
    const answered = new Promise<void>((resolve) => {
      rival.on('Page.javascriptDialogOpening', () => { void rival.send('Page.handleJavaScriptDialog', { accept: true }).finally(resolve); });
    });
    await click('Confirm');
    await answered;
    await rival.close();
    const r = await a.call('browser_handle_dialog', { accept: false });
    expect(r.isError).toBe(false);
    expect(r.text).toContain('was already answered');
    expect((await a.call('browser_evaluate', { function: '() => document.title' })).text).toContain('"yes"');
  });
});

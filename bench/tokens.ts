/**
 * `./forge bench tokens [--json]`
 *
 * How many characters an agent reads to get a job done: one scripted flow over a local site
 * (sign in, filter a 300-product list, add to cart, page through an orders table, open and close
 * a modal, search a list that re-renders on every input) through forge and through Playwright
 * MCP in the same run, each driven by the refs its own answers gave. Every step is checked to
 * have done its job from what its answer shows; an answer that does not show it is followed by
 * one browser_snapshot, as an agent would ask to see, and that snapshot is counted in the step.
 * Playwright MCP's count includes the files its answers link (a snapshot it wrote to disk is
 * still read by the agent).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { saveRun } from './harness.js';
import { startForge, startPlaywrightMcp, type Contender } from './mcp/contenders.js';
import { categoryOf, inStock, PRODUCTS, serveTokenSite, type TokenSite } from './tokens/pages.js';

/** The seat the bench drives forge as. */
const SEAT = 'default/bench/lead';
/** The goal: forge's answers at most this share of Playwright MCP's characters. */
const GOAL_RATIO = 0.5;

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const CATEGORY = 'Kitchen';
const shown = (stockOnly: boolean): number => Array.from({ length: PRODUCTS }, (_, i) => i + 1).filter((n) => categoryOf(n) === CATEGORY && (!stockOnly || inStock(n))).length;
/** A Kitchen product in stock, to add to the cart while both filters hold. */
const PICK = Array.from({ length: PRODUCTS }, (_, i) => i + 1).find((n) => categoryOf(n) === CATEGORY && inStock(n))!;

/** What an agent remembers of the page: each element's latest ref by role and name; a whole snapshot replaces it. */
class RefBook {
  private refs = new Map<string, string>();
  read(text: string): void {
    if (text.includes('```yaml')) this.refs.clear();
    for (const m of text.matchAll(/([a-z]+) "((?:[^"\\]|\\.)*)"[^\n]*?\[ref=([^\]]+)\]/g)) this.refs.set(`${m[1]} "${m[2]}"`, m[3]);
  }
  ref(key: string): string {
    const r = this.refs.get(key);
    if (!r) throw new Error(`no ref for ${key} in what the answers showed`);
    return r;
  }
}

interface Step { name: string; tool: string; args: (b: RefBook, refArg: string) => Record<string, unknown>; ok: (text: string) => boolean }

const has = (...parts: string[]) => (t: string): boolean => parts.every((p) => t.includes(p));

function steps(site: TokenSite): Step[] {
  const el = (b: RefBook, refArg: string, key: string): Record<string, unknown> => ({ element: key, [refArg]: b.ref(key) });
  return [
    { name: 'open the sign-in page', tool: 'browser_navigate', args: () => ({ url: `${site.origin}/signin` }), ok: has('textbox "Email"') },
    { name: 'type the email', tool: 'browser_type', args: (b, r) => ({ ...el(b, r, 'textbox "Email"'), text: 'ada@example.com' }), ok: (t) => /textbox "Email"[^\n]*: ada@example\.com/.test(t) },
    { name: 'type the password and submit', tool: 'browser_type', args: (b, r) => ({ ...el(b, r, 'textbox "Password"'), text: 'hunter2', submit: true }), ok: has('Signed in as ada@example.com') },
    { name: 'filter by category', tool: 'browser_select_option', args: (b, r) => ({ ...el(b, r, 'combobox "Category"'), values: [CATEGORY] }), ok: has(`Showing ${shown(false)} of ${PRODUCTS}`) },
    { name: 'filter to in stock', tool: 'browser_click', args: (b, r) => el(b, r, 'checkbox "In stock only"'), ok: has(`Showing ${shown(true)} of ${PRODUCTS}`) },
    { name: 'add a product to the cart', tool: 'browser_click', args: (b, r) => el(b, r, `button "Add product ${PICK} to cart"`), ok: has('Cart: 1 item') },
    { name: 'go to the orders', tool: 'browser_click', args: (b, r) => el(b, r, 'link "Orders"'), ok: has('Page 1 of 10', 'View order 1001') },
    { name: 'next page', tool: 'browser_click', args: (b, r) => el(b, r, 'button "Next page"'), ok: has('Page 2 of 10', 'View order 1021') },
    { name: 'next page again', tool: 'browser_click', args: (b, r) => el(b, r, 'button "Next page"'), ok: has('Page 3 of 10', 'View order 1045') },
    { name: 'open an order', tool: 'browser_click', args: (b, r) => el(b, r, 'button "View order 1045"'), ok: has('Order 1045', 'Ordered by customer') },
    { name: 'close the order', tool: 'browser_click', args: (b, r) => el(b, r, 'button "Close"'), ok: (t) => !t.includes('Ordered by customer') && /Page|Close/.test(t) },
    { name: 'previous page', tool: 'browser_click', args: (b, r) => el(b, r, 'button "Previous page"'), ok: has('Page 2 of 10', 'View order 1021') },
    { name: 'open the recipes', tool: 'browser_navigate', args: () => ({ url: `${site.origin}/recipes` }), ok: has('10 results') },
    { name: 'search recipes', tool: 'browser_type', args: (b, r) => ({ ...el(b, r, 'textbox "Filter recipes"'), text: 'apple' }), ok: has('2 results', 'Recipe: apple pie') },
    { name: 'search again', tool: 'browser_type', args: (b, r) => ({ ...el(b, r, 'textbox "Filter recipes"'), text: 'ban' }), ok: has('2 results', 'Recipe: banana bread') },
  ];
}

/** The text of the files an answer links, read from where the server wrote them. */
function linkedFiles(text: string, dir: string | undefined): string {
  if (!dir) return '';
  let out = '';
  for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const file = isAbsolute(m[1]) ? m[1] : resolve(dir, m[1]);
    if (existsSync(file) && /\.(ya?ml|md|txt|log)$/.test(file)) out += `\n${readFileSync(file, 'utf8')}`;
  }
  return out;
}

interface Run { chars: number; steps: number; steps_ok: number; per_step: number[]; failed: string[] }

async function walk(c: Contender, site: TokenSite, dir?: string): Promise<Run> {
  const book = new RefBook();
  const run: Run = { chars: 0, steps: 0, steps_ok: 0, per_step: [], failed: [] };
  for (const s of steps(site)) {
    run.steps++;
    try {
      const r = await c.call(s.tool, s.args(book, c.refArg));
      let read = r.text + linkedFiles(r.text, dir);
      book.read(read);
      let chars = read.length;
      if (!s.ok(read)) {
        const look = await c.call('browser_snapshot', {});
        read = look.text + linkedFiles(look.text, dir);
        book.read(read);
        chars += read.length;
      }
      run.chars += chars;
      run.per_step.push(chars);
      if (s.ok(read)) run.steps_ok++; else run.failed.push(`${s.name}: the answer does not show it done:\n${read.slice(0, 600)}`);
    } catch (e) {
      run.per_step.push(0);
      run.failed.push(`${s.name}: ${(e as Error).message.split('\n')[0]}`);
    }
  }
  return run;
}

async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  const started: Array<{ stop: () => Promise<void> }> = [];
  const stopAll = async (): Promise<void> => { await Promise.allSettled(started.splice(0).map((s) => s.stop())); };
  const onSignal = (): void => { void stopAll().finally(() => process.exit(130)); };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const site = await serveTokenSite();
    started.push({ stop: site.close });
    const forge = await startForge(ROOT, SEAT);
    started.push(forge);
    const pw = await startPlaywrightMcp();
    started.push(pw);
    process.stderr.write(`bench tokens: forge vs Playwright MCP ${pw.version}, ${steps(site).length} steps\n`);
    const f = await walk(forge, site);
    const w = await walk(pw, site, pw.dir);
    for (const [name, r] of [['forge', f], ['playwright_mcp', w]] as const) for (const why of r.failed) process.stderr.write(`${name}: ${why}\n`);
    const ratio = Math.round((f.chars / w.chars) * 1000) / 1000;
    console.table(Object.fromEntries(steps(site).map((s, i) => [s.name, { forge: f.per_step[i], playwright_mcp: w.per_step[i] }])));
    process.stderr.write(`forge ${f.chars} characters in ${f.steps_ok}/${f.steps} steps; Playwright MCP ${w.chars} in ${w.steps_ok}/${w.steps}; ratio ${ratio} (goal ≤ ${GOAL_RATIO})\n`);
    const figures = {
      forge: { chars: f.chars, steps: f.steps, steps_ok: f.steps_ok },
      playwright_mcp: { chars: w.chars, steps: w.steps, steps_ok: w.steps_ok },
      ratio, goal_ratio: GOAL_RATIO, playwright_mcp_version: pw.version,
    };
    saveRun('tokens', figures);
    if (json) console.log(JSON.stringify(figures));
  } finally {
    await stopAll();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`bench tokens failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});

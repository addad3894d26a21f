/**
 * The testing group ([agent] caps = ["testing"]): assertions an agent writing a test checks on
 * the seat's tab, each answered with the Playwright line that asserts the same in a test, and
 * browser_generate_locator, the locator a test would use for an element of the snapshot.
 * A check that does not hold is an error naming what was found instead.
 */
import { z } from 'zod';
import type { Locator } from 'playwright-core';
import { ForgeError } from '../../../shared/errors.js';
import { locate } from '../locate.js';
import { header } from './page-state.js';
import { onTab } from './on-tab.js';
import type { ToolDef } from './tool-def.js';
import type { Tab } from '../tabs.js';
import { elementArgs, elementShape, targetOf } from './element.js';

const q = (s: string): string => JSON.stringify(s).replace(/^"|"$/g, "'").replace(/\\"/g, '"');

/** The test's own locator for an element: Playwright resolves it to the most readable unique one. */
async function testLocator(loc: Locator): Promise<string> {
  return `page.${(await loc.normalize()).toString()}`;
}

function done(tab: Tab, line: string): string {
  return ['### Result', 'Verified.', '```js', line, '```', header(tab)].join('\n');
}

function failed(tab: Tab, what: string): ForgeError {
  return new ForgeError('not_verified', `${what} on tab ${tab.number} (${tab.pageId})`);
}

/** The first frame of the tab where the locator finds a visible element. */
async function visibleIn(tab: Tab, make: (f: ReturnType<Tab['page']['mainFrame']>) => Locator): Promise<Locator | undefined> {
  for (const frame of tab.page.frames()) {
    const loc = make(frame).filter({ visible: true });
    if (await loc.count() > 0) return loc.first();
  }
  return undefined;
}

export const VERIFY_TOOLS: ToolDef[] = [
  {
    name: 'browser_generate_locator',
    cap: 'testing',
    description: 'The locator a Playwright test would use for an element of your current tab (target: a ref from browser_snapshot or a unique selector).',
    schema: z.object({ ...elementArgs }).strict(),
    run: (a, ctx, p) => onTab(p, ctx, 'browser_generate_locator', 'generating a locator', async (tab) => {
      const loc = await locate(tab, targetOf(a));
      return ['### Result', await testLocator(loc), header(tab)].join('\n');
    }),
  },
  {
    name: 'browser_verify_element_visible',
    cap: 'testing',
    description: 'Check that an element with this role and accessible name is visible on your current tab.',
    schema: z.object({
      role: z.string().describe('The element\'s role, as the snapshot prints it: - {ROLE} "Accessible Name"'),
      accessibleName: z.string().describe('The element\'s accessible name, as the snapshot prints it: - role "{ACCESSIBLE_NAME}"'),
    }).strict(),
    run: (a, ctx, p) => onTab(p, ctx, 'browser_verify_element_visible', 'verifying an element', async (tab) => {
      const role = a.role as Parameters<Tab['page']['getByRole']>[0];
      const name = a.accessibleName as string;
      const loc = await visibleIn(tab, (f) => f.getByRole(role, { name }));
      if (!loc) throw failed(tab, `no visible ${a.role as string} named ${JSON.stringify(name)} is`);
      return done(tab, `await expect(${await testLocator(loc)}).toBeVisible();`);
    }),
  },
  {
    name: 'browser_verify_text_visible',
    cap: 'testing',
    description: 'Check that this text is visible on your current tab. Prefer browser_verify_element_visible where the text belongs to an element.',
    schema: z.object({ text: z.string().describe('The text, as the snapshot prints it: - text: {TEXT}') }).strict(),
    run: (a, ctx, p) => onTab(p, ctx, 'browser_verify_text_visible', 'verifying text', async (tab) => {
      const text = a.text as string;
      const loc = await visibleIn(tab, (f) => f.getByText(text));
      if (!loc) throw failed(tab, `the text ${JSON.stringify(text)} is not visible`);
      return done(tab, `await expect(page.getByText(${q(text)})).toBeVisible();`);
    }),
  },
  {
    name: 'browser_verify_list_visible',
    cap: 'testing',
    description: 'Check that a list of your current tab (target: its ref) shows each of these items.',
    schema: z.object({ ...elementArgs, items: z.array(z.string()).min(1).describe('The items\' texts') }).strict(),
    run: (a, ctx, p) => onTab(p, ctx, 'browser_verify_list_visible', 'verifying a list', async (tab) => {
      const list = await locate(tab, targetOf(a));
      const found: string[] = [];
      for (const item of a.items as string[]) {
        const loc = list.getByText(item).filter({ visible: true });
        if (await loc.count() === 0) throw failed(tab, `the list ${targetOf(a)} has no visible item ${JSON.stringify(item)}`);
        found.push(((await loc.first().textContent()) ?? item).trim());
      }
      const aria = ['- list:', ...found.map((t) => `  - listitem: ${JSON.stringify(t)}`)].join('\n');
      return done(tab, `await expect(${await testLocator(list)}).toMatchAriaSnapshot(\`\n${aria}\n\`);`);
    }),
  },
  {
    name: 'browser_verify_value',
    cap: 'testing',
    description: 'Check the value of a field of your current tab: a textbox, combobox or slider\'s text, or whether a checkbox or radio is checked ("true"/"false").',
    schema: z.object({
      type: z.enum(['textbox', 'checkbox', 'radio', 'combobox', 'slider']).describe('The kind of field'),
      element: elementShape.element,
      target: elementShape.target.optional(),
      ref: elementShape.ref,
      value: z.string().describe('The value expected; for a checkbox or radio, "true" or "false"'),
    }).strict(),
    run: (a, ctx, p) => onTab(p, ctx, 'browser_verify_value', 'verifying a value', async (tab) => {
      const loc = await locate(tab, targetOf(a));
      const want = a.value as string;
      const source = await testLocator(loc);
      if (a.type === 'checkbox' || a.type === 'radio') {
        const checked = await loc.isChecked();
        if (String(checked) !== want) throw failed(tab, `${targetOf(a)} is ${checked ? 'checked' : 'not checked'}, not ${want === 'true' ? 'checked' : 'unchecked'} as expected,`);
        return done(tab, `await expect(${source}).${checked ? 'toBeChecked' : 'not.toBeChecked'}();`);
      }
      const value = await loc.inputValue();
      if (value !== want) throw failed(tab, `${targetOf(a)} holds ${JSON.stringify(value)}, not ${JSON.stringify(want)},`);
      return done(tab, `await expect(${source}).toHaveValue(${q(want)});`);
    }),
  },
];

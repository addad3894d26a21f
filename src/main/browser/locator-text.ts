/**
 * A target written as Playwright code (`getByRole('button', { name: 'Submit' })`,
 * `page.getByText("Next")`, `locator('#id')`), as Playwright MCP takes it, read into the selector
 * it stands for by Playwright's own parser (playwright-core ships it; its package names that file
 * among its exports, but gives it no types).
 */
import { createRequire } from 'node:module';
import { ForgeError } from '../../shared/errors.js';

interface Iso { locatorOrSelectorAsSelector(language: string, text: string, testIdAttribute: string): string }

const iso = (createRequire(import.meta.url)('playwright-core/lib/coreBundle') as { iso: Iso }).iso;

/** How Playwright code starts: a locator method's call, with or without `page.` before it. */
const LOCATOR_CODE_RE = /^(?:page\.)?(?:getBy(?:Role|Text|Label|Placeholder|AltText|Title|TestId)|locator|frameLocator)\(/;

/** The attribute getByTestId reads, as Playwright's default. */
const TEST_ID_ATTRIBUTE = 'data-testid';

export function isLocatorCode(target: string): boolean {
  return LOCATOR_CODE_RE.test(target);
}

/** The selector the code stands for; code the parser cannot read is refused in words. */
export function selectorOfCode(target: string): string {
  let selector = '';
  try { selector = iso.locatorOrSelectorAsSelector('javascript', target.replace(/^page\./, ''), TEST_ID_ATTRIBUTE); } catch { /* said below */ }
  if (!selector) {
    throw new ForgeError('bad_request', `${target} is not Playwright locator code forge can read; use a ref from browser_snapshot, role=ROLE[name="NAME"], or one call such as getByRole('button', { name: 'Save' })`);
  }
  return selector;
}

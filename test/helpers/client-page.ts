/** The served web client in a real headless Chromium (playwright-core), at a given window size. */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const ARTIFACTS = join(process.cwd(), 'test', 'artifacts');

/**
 * The client's Chromium, with a sound runtime dir of its own (removed when it closes): without
 * one, its PulseAudio client makes one in the run's temp dir through a link in the home dir,
 * and leaves it there.
 */
export async function launchClientBrowser(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const pulse = mkdtempSync(join(tmpdir(), 'client-pulse-'));
  const browser = await chromium.launch({
    executablePath: '/usr/lib/chromium/chromium',
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    env: { ...process.env, PULSE_RUNTIME_PATH: pulse },
  });
  browser.on('disconnected', () => rmSync(pulse, { recursive: true, force: true }));
  return browser;
}

export interface ClientSize { width: number; height: number; touch?: boolean }

export const DESKTOP: ClientSize = { width: 1280, height: 800 };
export const PHONE_430: ClientSize = { width: 430, height: 932, touch: true };
/** A tablet in portrait: a finger's screen wide enough for the host's smallest window. */
export const TABLET: ClientSize = { width: 820, height: 1180, touch: true };
export const PHONE_393: ClientSize = { width: 393, height: 852, touch: true };

export interface ClientPage { context: BrowserContext; page: Page; shot: (name: string) => Promise<void>; close: () => Promise<void> }

export async function openClient(browser: Browser, viewerUrl: string, size: ClientSize = DESKTOP): Promise<ClientPage> {
  const context = await browser.newContext({
    viewport: { width: size.width, height: size.height },
    ...(size.touch ? { hasTouch: true, isMobile: true, deviceScaleFactor: 2 } : {}),
  });
  const page = await context.newPage();
  await page.goto(viewerUrl);
  await page.locator('.link-state[data-state="open"]').waitFor();
  return {
    context, page,
    shot: async (name) => { await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) }); },
    close: () => context.close(),
  };
}

/** A point inside the drawn picture, given as a fraction of the page's own viewport. */
export async function picturePoint(page: Page, fx: number, fy: number): Promise<{ x: number; y: number }> {
  // A surface whose capture just restarted (a new layout) shows no picture until its first frame.
  const end = Date.now() + 20_000;
  for (;;) {
    const p = await page.evaluate(([fx, fy]) => {
      const c = document.querySelector<HTMLCanvasElement>('.surface-canvas')!;
      const r = c.getBoundingClientRect();
      const [fw, fh] = (c.dataset.frame ?? '0x0').split('x').map(Number);
      if (!(fw! > 0 && fh! > 0)) return null;
      const scale = Math.min(r.width / fw!, r.height / fh!);
      const w = fw! * scale;
      const h = fh! * scale;
      return { x: r.left + (r.width - w) / 2 + fx! * w, y: r.top + (r.height - h) / 2 + fy! * h };
    }, [fx, fy] as const);
    if (p) return p;
    if (Date.now() > end) throw new Error('the surface never showed a picture to point at');
    await page.waitForTimeout(100);
  }
}

/** Bound on a surface going live after an attach, ms: a page shown on a busy machine. */
const SURFACE_LIVE_WAIT_MS = 20_000;

/**
 * Waits for the surface to show its page live; else fails naming the phase it stands in and what
 * the surface said, with the server's warnings and errors since `logFrom` (of `serverOutput`).
 */
export async function surfaceLive(page: Page, serverOutput?: () => string, logFrom = 0): Promise<void> {
  try {
    await page.locator('.surface[data-phase="live"]').waitFor({ timeout: SURFACE_LIVE_WAIT_MS });
  } catch (e) {
    const phase = await page.locator('.surface').first().getAttribute('data-phase').catch(() => null);
    const said = await page.locator('.surface-state').first().textContent().catch(() => null);
    const log = (serverOutput?.() ?? '').slice(logFrom).split('\n').filter((l) => /"level":(40|50|60)/.test(l)).slice(-20).join('\n');
    throw new Error(`the surface did not go live within ${SURFACE_LIVE_WAIT_MS / 1000} s: phase ${phase}, saying "${said}"\n${log}`, { cause: e });
  }
}

/** Opens the client at `size` and shows a tab from the strip's panel (the first, or the one whose row has `title`), live. */
export async function showFirstTab(browser: Browser, viewerUrl: string, size: ClientSize = DESKTOP, title?: string): Promise<ClientPage> {
  const c = await openClient(browser, viewerUrl, size);
  await c.page.locator('#browser-row').click();
  const rows = c.page.locator('#browser-panel .tab-row', title ? { hasText: title } : {});
  await rows.first().getByRole('button', { name: 'show' }).click();
  await c.page.getByRole('dialog').waitFor();
  await c.page.locator('.surface[data-phase="live"]').waitFor({ timeout: 20_000 });
  return c;
}

/** Whether the drawn picture has the canvas box's shape: the page is laid out at this surface, with no bars around it. */
export async function pictureFitsBox(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const canvas = document.querySelector<HTMLCanvasElement>('.surface-canvas');
    const [w, h] = (canvas?.dataset.frame ?? '0x0').split('x').map(Number);
    const r = canvas?.getBoundingClientRect();
    return !!r && w! > 0 && h! > 0 && Math.abs(w! / h! - r.width / r.height) < 0.02;
  });
}

/**
 * Takes the controller role from the bar, and waits until the server says this viewer holds it
 * and a frame laid out at this surface's shape is drawn (so a point on the picture is a point on the page).
 */
export async function takeControl(c: ClientPage): Promise<void> {
  await c.page.getByRole('button', { name: 'take control' }).click();
  await c.page.locator('.bar-control[aria-pressed="true"]').waitFor({ timeout: 15_000 });
  const end = Date.now() + 20_000;
  while (!(await pictureFitsBox(c.page))) {
    if (Date.now() > end) throw new Error('the controller\'s page was never laid out at its surface\'s shape');
    await c.page.waitForTimeout(100);
  }
}

/** A #rrggbb colour as getComputedStyle says it. */
export function rgb(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return `rgb(${r}, ${g}, ${b})`;
}

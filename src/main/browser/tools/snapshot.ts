/**
 * Reading the page as text: the accessibility snapshot (whole, one element's subtree, or cut
 * at a depth) and browser_find, which answers the snapshot's lines that match, with their refs.
 */
import { z } from 'zod';
import { ForgeError } from '../../../shared/errors.js';
import { header, pageState, snapshotOf } from './page-state.js';
import { onTab } from './on-tab.js';
import type { ToolDef } from './tool-def.js';
import { elementShape, targetOf } from './element.js';
import { answerOrFile, filenameArg } from './to-file.js';

/** Matching lines browser_find answers at most: past it the count is said, so a vague query cannot flood the agent. */
export const FIND_MATCHES_MAX = 50;
/** Longest regular expression browser_find takes, characters. */
const FIND_PATTERN_MAX_CHARS = 1_000;

function matcher(a: Record<string, unknown>): { test: (line: string) => boolean; said: string } {
  const text = a.text as string | undefined;
  const regex = a.regex as string | undefined;
  if (!text && !regex) throw new ForgeError('bad_request', 'browser_find needs text (a plain, case-insensitive search) or regex');
  if (text && regex) throw new ForgeError('bad_request', 'give browser_find either text or regex, not both');
  if (text) { const t = text.toLowerCase(); return { test: (l) => l.toLowerCase().includes(t), said: JSON.stringify(text) }; }
  if (regex!.length > FIND_PATTERN_MAX_CHARS) throw new ForgeError('bad_request', `the regex is ${regex!.length} characters; browser_find takes at most ${FIND_PATTERN_MAX_CHARS}`);
  const slashed = /^\/(.*)\/([a-z]*)$/s.exec(regex!);
  let re: RegExp;
  try { re = slashed ? new RegExp(slashed[1], slashed[2].replace(/[gy]/g, '')) : new RegExp(regex!); } catch (e) {
    throw new ForgeError('bad_request', `the regex ${JSON.stringify(regex)} is not a valid regular expression (${(e as Error).message})`);
  }
  return { test: (l) => re.test(l), said: String(re) };
}

/** The ref a snapshot line carries, or that of the nearest line above it that has one. */
function refNear(lines: string[], i: number): string | undefined {
  for (let j = i; j >= 0; j--) { const m = /\[ref=([^\]]+)\]/.exec(lines[j]); if (m) return m[1]; }
  return undefined;
}

export const SNAPSHOT_TOOLS: ToolDef[] = [
  {
    name: 'browser_snapshot',
    description: 'Capture the accessibility snapshot of your current tab; its [ref=eN] marks name elements for the other tools. Give a target to snapshot only that subtree, a depth to cut the tree.',
    schema: z.object({
      target: elementShape.target.optional().describe('Snapshot only this element\'s subtree'),
      ref: elementShape.ref,
      depth: z.number().int().min(0).optional().describe('Limit the depth of the snapshot tree'),
      boxes: z.boolean().optional().describe('Give each element its bounding box as [box=x,y,width,height]: CSS px of the viewport, as getBoundingClientRect says'),
      filename: filenameArg,
    }).strict(),
    run: (a, ctx, p) => answerOrFile(a.filename, (keep) => onTab(p, ctx, 'browser_snapshot', 'taking a snapshot', async (tab) => {
      const named = targetOf(a, { optional: true });
      const depth = a.depth as number | undefined;
      if (!named && depth === undefined && !a.boxes) return keep(tab, 'Snapshot', await pageState(tab));
      const what = named ? `Snapshot of ${named}` : 'Page snapshot';
      const said = `- ${what}${depth !== undefined ? ` (depth ${depth})` : ''}${a.boxes ? ' with boxes' : ''}:`;
      return keep(tab, 'Snapshot', ['### Page state', header(tab), said, '```yaml', await snapshotOf(tab, named || undefined, depth, a.boxes as boolean | undefined), '```'].join('\n'));
    })),
  },
  {
    name: 'browser_find',
    description: 'Search the accessibility snapshot of your current tab for text or a regular expression; answers the matching lines with their refs.',
    schema: z.object({
      text: z.string().optional().describe('Plain text to search for (case-insensitive)'),
      regex: z.string().optional().describe('A regular expression; /pattern/i form for flags'),
    }).strict(),
    run: (a, ctx, p) => onTab(p, ctx, 'browser_find', 'searching the page', async (tab) => {
      const m = matcher(a);
      const lines = (await snapshotOf(tab)).split('\n');
      const hits: string[] = [];
      let total = 0;
      lines.forEach((line, i) => {
        if (!m.test(line)) return;
        total++;
        if (hits.length >= FIND_MATCHES_MAX) return;
        const own = /\[ref=([^\]]+)\]/.exec(line)?.[1];
        const near = own ? undefined : refNear(lines, i - 1);
        // The snapshot's own line, without its list dash and its trailing colon: `- link "Orders" [ref=e5]`.
        hits.push(`- ${line.trim().replace(/^- /, '').replace(/:$/, '')}${near ? `  (inside ref ${near})` : ''}`);
      });
      const head = total === 0 ? `No line of the snapshot matches ${m.said}.` : `${total} line${total === 1 ? '' : 's'} of the snapshot match${total === 1 ? 'es' : ''} ${m.said}${total > hits.length ? `; the first ${hits.length} are shown` : ''}:`;
      return ['### Result', head, ...hits, await pageState(tab, false)].join('\n');
    }),
  },
];

/**
 * What changed in a page since a seat last read it. Playwright's ai-mode snapshot keeps an
 * element's ref while its role and name hold, within one document, so two snapshots of one
 * document are compared line by line: a line with a ref is that element, a line without one (a
 * text, a /url) belongs to the nearest ref above it in the tree.
 */
import { SNAPSHOT_MAX_CHARS } from '../../shared/limits.js';

/** Past this share of the whole snapshot's characters the changes are not worth reading apart: the whole page is answered. */
export const CHANGES_WHOLE_SHARE = 0.6;
/** Longest snapshot kept as a seat's last reading of a tab, characters: one an answer can show whole; a longer page is answered whole (cut) each time rather than held. */
export const KEPT_SNAPSHOT_MAX_CHARS = SNAPSHOT_MAX_CHARS;
/** Seats whose last reading one tab keeps: its owner, and the few it was handed between. */
export const KEPT_READERS_PER_TAB = 4;

interface Line { text: string; trimmed: string; indent: number; ref?: string; parent: number; owner: string }

const REF = /\[ref=([^\]]+)\]/;
/** Focus moving is no change worth a line: the line it left and the one it reached would both show. */
const ACTIVE = / \[active\]/;

function parse(text: string): Line[] {
  const out: Line[] = [];
  const stack: number[] = [];
  for (const text0 of text.split('\n')) {
    if (!text0.trim()) continue;
    const indent = text0.length - text0.trimStart().length;
    while (stack.length && out[stack[stack.length - 1]].indent >= indent) stack.pop();
    const parent = stack.length ? stack[stack.length - 1] : -1;
    const ref = REF.exec(text0)?.[1];
    const owner = parent < 0 ? '' : out[parent].ref ?? out[parent].owner;
    out.push({ text: text0, trimmed: text0.trim().replace(ACTIVE, ''), indent, ref, parent, owner });
    stack.push(out.length - 1);
  }
  return out;
}

/**
 * `focus`: where the focus went when it moved (the focused element's line, without its marker),
 * or `nothing` when no element holds it now; absent when it stayed. Not a changed line, but said:
 * a Tab that moved it is an answer the agent reads.
 */
export interface Changes { added: number; changed: number; removed: number; unchanged: number; text: string; focus?: string }

/** The focused element's line (its ref, role and name, without the marker), if a line holds the focus. */
function focusOf(lines: Line[]): string | undefined {
  const l = lines.find((x) => ACTIVE.test(x.text));
  return l ? l.trimmed.replace(/^- /, '').replace(/:$/, '') : undefined;
}

/** Refs as short runs: e12-e40, e55. */
function refRuns(refs: string[]): string {
  const runs: string[] = [];
  let start = '', last = -2, prefix = '', prev = '';
  const close = (): void => { if (start) runs.push(start === prev ? start : `${start}-${prev}`); };
  for (const r of refs) {
    const m = /^(.*?)(\d+)$/.exec(r);
    const n = m ? Number(m[2]) : NaN;
    if (m && m[1] === prefix && n === last + 1) { prev = r; last = n; continue; }
    close();
    start = prev = r; prefix = m?.[1] ?? ''; last = m ? n : -2;
  }
  close();
  return runs.join(', ');
}

/** The lines of `now` that `before` lacks or had otherwise, and the refs it lost; the text says them with their refs. */
export function changesBetween(before: string, now: string): Changes {
  const old = parse(before);
  const cur = parse(now);
  const oldRefs = new Map<string, string>();
  const oldTexts = new Map<string, number>();
  for (const l of old) {
    if (l.ref) oldRefs.set(l.ref, l.trimmed);
    else oldTexts.set(`${l.owner}|${l.trimmed}`, (oldTexts.get(`${l.owner}|${l.trimmed}`) ?? 0) + 1);
  }
  const mark: Array<'+' | '~' | ''> = [];
  const seenRefs = new Set<string>();
  for (const l of cur) {
    if (l.ref) {
      seenRefs.add(l.ref);
      const was = oldRefs.get(l.ref);
      mark.push(was === undefined ? '+' : was === l.trimmed ? '' : '~');
    } else {
      const k = `${l.owner}|${l.trimmed}`;
      const left = oldTexts.get(k) ?? 0;
      if (left > 0) { oldTexts.set(k, left - 1); mark.push(''); } else mark.push('+');
    }
  }
  const goneRefs = [...oldRefs.keys()].filter((r) => !seenRefs.has(r));
  const goneTexts = [...oldTexts.values()].reduce((s, n) => s + n, 0);
  const out: string[] = [];
  const context = new Set<number>();
  cur.forEach((l, i) => {
    if (!mark[i]) return;
    // An added line whose parent the agent sees unchanged is shown under that parent, so it knows where it is.
    if (mark[i] === '+' && l.parent >= 0 && !mark[l.parent] && !context.has(l.parent)) {
      context.add(l.parent);
      out.push(`  ${cur[l.parent].text}`);
    }
    out.push(`${mark[i]} ${l.text}`);
  });
  const added = mark.filter((m) => m === '+').length;
  const changed = mark.filter((m) => m === '~').length;
  const removed = goneRefs.length + goneTexts;
  if (removed) out.push(`# removed: ${removed} line${removed === 1 ? '' : 's'}${goneRefs.length ? ` (refs ${refRuns(goneRefs)})` : ''}`);
  const focusBefore = focusOf(old);
  const focusNow = focusOf(cur);
  return {
    added, changed, removed, unchanged: cur.length - added - changed, text: out.join('\n'),
    ...(focusNow !== focusBefore ? { focus: focusNow ?? 'nothing' } : {}),
  };
}

interface Reading { document: number; text: string }

/** Each tab's last snapshot as each seat read it; a closed tab's go with it. */
const readings = new WeakMap<object, Map<string, Reading>>();

export function lastReading(tab: object, seat: string): Reading | undefined {
  return readings.get(tab)?.get(seat);
}

export function keepReading(tab: object, seat: string, document: number, text: string): void {
  let bySeat = readings.get(tab);
  if (!bySeat) {
    bySeat = new Map();
    readings.set(tab, bySeat);
  }
  bySeat.delete(seat);
  if (Number.isNaN(document) || text.length > KEPT_SNAPSHOT_MAX_CHARS) return;
  bySeat.set(seat, { document, text });
  while (bySeat.size > KEPT_READERS_PER_TAB) bySeat.delete(bySeat.keys().next().value!);
}

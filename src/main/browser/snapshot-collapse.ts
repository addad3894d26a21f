/**
 * Long lists collapsed on arrival: a whole snapshot an action answers with (a new page) shows the
 * first entries of a long run of like siblings (list items, rows, options) and counts the rest
 * with their refs, since an agent rarely reads past the first screenful of 300 products before
 * filtering or searching. browser_snapshot and browser_find still answer every line; the seat's
 * kept reading is the whole snapshot, so the next answer's changes are against the real page.
 */

/** Runs of like siblings longer than this are collapsed: a table page or a menu stays whole. */
export const LIST_COLLAPSE_MIN_ENTRIES = 30;
/** Entries of a collapsed run that are shown, from its start: a screenful, enough to see what the list holds. */
export const LIST_SHOWN_ENTRIES = 10;

interface Node { line: string; indent: number; children: Node[] }

const REF = /\[ref=([^\]]+)\]/g;

function parse(text: string): Node[] {
  const root: Node = { line: '', indent: -1, children: [] };
  const stack: Node[] = [root];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const indent = line.length - line.trimStart().length;
    while (stack.length > 1 && stack[stack.length - 1].indent >= indent) stack.pop();
    const node: Node = { line, indent, children: [] };
    stack[stack.length - 1].children.push(node);
    stack.push(node);
  }
  return root.children;
}

/** The role a snapshot line names (`- listitem "x" [ref=e5]` is listitem), or '' for text and props. */
function roleOf(n: Node): string {
  return /^\s*- ([a-z]+)\b/.exec(n.line)?.[1] ?? '';
}

function refsIn(n: Node, out: string[]): string[] {
  for (const m of n.line.matchAll(REF)) out.push(m[1]);
  for (const c of n.children) refsIn(c, out);
  return out;
}

function render(nodes: Node[], out: string[]): number {
  let hidden = 0;
  for (let i = 0; i < nodes.length;) {
    const role = roleOf(nodes[i]);
    let j = i + 1;
    while (role && j < nodes.length && roleOf(nodes[j]) === role) j++;
    const run = nodes.slice(i, j);
    const collapse = role !== '' && run.length > LIST_COLLAPSE_MIN_ENTRIES;
    for (const n of collapse ? run.slice(0, LIST_SHOWN_ENTRIES) : run) {
      out.push(n.line);
      hidden += render(n.children, out);
    }
    if (collapse) {
      const rest = run.slice(LIST_SHOWN_ENTRIES);
      const refs = rest.flatMap((n) => refsIn(n, []));
      const span = refs.length ? ` (refs ${refs[0]}…${refs[refs.length - 1]})` : '';
      out.push(`${' '.repeat(run[0].indent)}- "… ${rest.length} more ${role} entries${span}: browser_find or browser_snapshot shows them"`);
      hidden += rest.length;
    }
    i = j;
  }
  return hidden;
}

/** The snapshot with each long run cut to its first entries, and how many entries went. */
export function collapseLongLists(snapshot: string): { text: string; hidden: number } {
  const out: string[] = [];
  const hidden = render(parse(snapshot), out);
  return hidden ? { text: out.join('\n'), hidden } : { text: snapshot, hidden: 0 };
}

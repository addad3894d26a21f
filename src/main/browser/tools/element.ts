/**
 * How a tool names an element: `target` as Playwright MCP calls it now, or `ref` as earlier
 * versions did, both meaning a ref from the snapshot or a unique selector. A call that gives both
 * and they differ is refused: forge never picks one of two elements for the agent.
 */
import { z } from 'zod';
import { ForgeError } from '../../../shared/errors.js';

const TARGET_WORDS = 'The element: a ref from browser_snapshot (e5), or a unique selector such as role=button[name="Save"] (the snapshot\'s own words, button "Save", name that role and name)';

export const elementShape = {
  element: z.string().optional().describe('Human-readable description of the element, for the log'),
  target: z.string().describe(TARGET_WORDS),
  ref: z.string().optional().describe(`Same as target (the older name); give one of them`),
};

/** The schema keys that name one element: element, target and ref, target optional as ref may stand for it. */
export const elementArgs = { element: elementShape.element, target: elementShape.target.optional(), ref: elementShape.ref };

/** The keys of a two-element tool: startTarget/startRef and endTarget/endRef. */
export function prefixedElementArgs(prefix: 'start' | 'end'): Record<string, z.ZodTypeAny> {
  return {
    [`${prefix}Element`]: z.string().optional().describe(`Human-readable description of the ${prefix} element, for the log`),
    [`${prefix}Target`]: z.string().optional().describe(`${TARGET_WORDS} (${prefix} of the drag)`),
    [`${prefix}Ref`]: z.string().optional().describe(`Same as ${prefix}Target (the older name)`),
  };
}

/**
 * The element a call names: its target or ref (`prefix` for startTarget/startRef and the like),
 * refused in words when neither is given, or when both are and they differ.
 */
export function targetOf(a: Record<string, unknown>, opts: { prefix?: string; optional?: true } = {}): string {
  const tk = opts.prefix ? `${opts.prefix}Target` : 'target';
  const rk = opts.prefix ? `${opts.prefix}Ref` : 'ref';
  const t = typeof a[tk] === 'string' ? (a[tk] as string).trim() : undefined;
  const r = typeof a[rk] === 'string' ? (a[rk] as string).trim() : undefined;
  if (t && r && t !== r) throw new ForgeError('bad_request', `${tk} "${t}" and ${rk} "${r}" name different elements; give one of them (${tk} is the current name)`);
  const named = t || r;
  if (!named && !opts.optional) throw new ForgeError('bad_request', `name the element with ${tk}: a ref from browser_snapshot (e5) or a unique selector (role=button[name="Save"])`);
  return named ?? '';
}

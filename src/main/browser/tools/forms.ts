/**
 * Form tools: type into a field, select options, fill a whole form. A field is named by
 * target or ref; what the typing started (a submit's navigation) is in the answer.
 */
import { z } from 'zod';
import { ForgeError } from '../../../shared/errors.js';
import { PAGE_ACTION_TIMEOUT_MS } from '../../../shared/limits.js';
import { inForgeWords } from '../driver-errors.js';
import { locate } from '../locate.js';
import { onTab } from './on-tab.js';
import type { ToolDef } from './tool-def.js';
import { elementArgs, targetOf } from './element.js';
import { actionAnswer } from './pointer.js';

/** Fields one browser_fill_form may fill: a form, not a spreadsheet. */
export const FILL_FORM_FIELDS_MAX = 100;

const FIELD_TYPES = ['textbox', 'checkbox', 'radio', 'combobox', 'slider'] as const;

const field = z.object({
  name: z.string().describe('Human-readable field name'),
  type: z.enum(FIELD_TYPES).describe('The kind of field'),
  ...elementArgs,
  value: z.string().describe('The value: text for a textbox, true or false for a checkbox or radio, the option\'s text or value for a combobox, the number for a slider'),
}).strict();

export const FORM_TOOLS: ToolDef[] = [
  {
    name: 'browser_type',
    description: 'Type text into an editable element of your current tab.',
    schema: z.object({
      ...elementArgs,
      text: z.string().describe('The text to type'),
      submit: z.boolean().optional().describe('Press Enter after'),
      slowly: z.boolean().optional().describe('Type one character at a time, for pages whose key handlers must see each key'),
    }).strict(),
    run: (a, ctx, p) => onTab(p, ctx, 'browser_type', 'typing', async (tab) => {
      const loc = await locate(tab, targetOf(a));
      return actionAnswer(p, tab, a.submit ? 'submit' : 'typing', async () => {
        if (a.slowly) await loc.pressSequentially(a.text as string, { timeout: PAGE_ACTION_TIMEOUT_MS });
        else await loc.fill(a.text as string, { timeout: PAGE_ACTION_TIMEOUT_MS });
        if (a.submit) await loc.press('Enter', { timeout: PAGE_ACTION_TIMEOUT_MS });
      });
    }),
  },
  {
    name: 'browser_select_option',
    description: 'Select options of a dropdown (a select element) on your current tab, by their value or text.',
    schema: z.object({ ...elementArgs, values: z.array(z.string()).describe('The values (or visible texts) to select: one, or several for a multiple select') }).strict(),
    run: (a, ctx, p) => onTab(p, ctx, 'browser_select_option', 'selecting an option', async (tab) => {
      const loc = await locate(tab, targetOf(a));
      return actionAnswer(p, tab, 'selection', async () => { await loc.selectOption(a.values as string[], { timeout: PAGE_ACTION_TIMEOUT_MS }); });
    }),
  },
  {
    name: 'browser_fill_form',
    description: 'Fill several fields of a form on your current tab at once: textboxes, checkboxes, radios, comboboxes and sliders.',
    schema: z.object({ fields: z.array(field).min(1).describe('The fields to fill, in order') }).strict(),
    run: (a, ctx, p) => onTab(p, ctx, 'browser_fill_form', 'filling the form', async (tab) => {
      const fields = a.fields as Array<z.infer<typeof field>>;
      if (fields.length > FILL_FORM_FIELDS_MAX) throw new ForgeError('bad_request', `browser_fill_form takes at most ${FILL_FORM_FIELDS_MAX} fields, not ${fields.length}; fill the form in parts`);
      // Every field is resolved before any is touched: a stale ref leaves the form as it was. The
      // fields are asked of the page at once (one round trip's wait, not one per field).
      for (const f of fields) if (f.type === 'checkbox' || f.type === 'radio') checked(f);
      // Every field's name is read before any is asked for: a field that names nothing is refused
      // before a lookup starts, so no lookup is left running with nobody to hear its answer.
      const targets = fields.map((f) => targetOf(f));
      const asked = await Promise.allSettled(targets.map((t) => locate(tab, t)));
      const refused = asked.find((r) => r.status === 'rejected');
      if (refused) throw refused.reason;
      const located = fields.map((f, i) => ({ f, loc: (asked[i] as PromiseFulfilledResult<Awaited<ReturnType<typeof locate>>>).value }));
      const opts = { timeout: PAGE_ACTION_TIMEOUT_MS };
      return actionAnswer(p, tab, 'form filling', async () => {
        for (const [i, { f, loc }] of located.entries()) {
          try {
            switch (f.type) {
              case 'textbox': case 'slider': await loc.fill(f.value, opts); break;
              case 'checkbox': case 'radio': await loc.setChecked(checked(f), opts); break;
              case 'combobox': await loc.selectOption(f.value, opts); break;
            }
          } catch (e) {
            // Which field failed, and what the form holds now: the fields before it are filled.
            const err = inForgeWords(e, tab, `filling field ${i + 1} of ${located.length}, "${f.name}" (a ${f.type})`);
            throw new ForgeError(err.kind, `${err.message}; ${filledBefore(i)}`);
          }
        }
      });
    }),
  },
];

/** What a form holds when field `i` (from 0) failed. */
function filledBefore(i: number): string {
  if (i === 0) return 'no field was filled';
  return `${i === 1 ? 'field 1 was' : `fields 1 to ${i} were`} filled, the rest were not`;
}

function checked(f: { name: string; value: string }): boolean {
  const v = f.value.trim().toLowerCase();
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw new ForgeError('bad_request', `field "${f.name}" is a checkbox or radio: its value is true or false, not ${JSON.stringify(f.value)}`);
}

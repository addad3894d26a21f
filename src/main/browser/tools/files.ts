/**
 * Files into the page: browser_file_upload answers the open file chooser, browser_drop drops files
 * or data on an element as if dragged from outside the page. Both take file contents (base64), so
 * an agent on another machine sends its own files; `paths` still names files on the server's disk.
 */
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { z } from 'zod';
import { ForgeError } from '../../../shared/errors.js';
import { PAGE_ACTION_TIMEOUT_MS } from '../../../shared/limits.js';
import { locate } from '../locate.js';
import { onTab } from './on-tab.js';
import { pageState } from './page-state.js';
import type { ToolDef } from './tool-def.js';
import { elementArgs, targetOf } from './element.js';
import { actionAnswer } from './pointer.js';

/** Bytes of files one call carries: base64 of 3 MiB fits the 4 MiB an MCP request body may be. */
export const UPLOAD_MAX_BYTES = 3 * 1024 * 1024;

const fileShape = z.object({
  name: z.string().min(1).max(255).describe('The file\'s name, as the page sees it'),
  mimeType: z.string().optional().describe('Its type, application/octet-stream by default'),
  data: z.string().optional().describe('Its bytes, base64'),
  text: z.string().optional().describe('Or its contents as text (written as UTF-8), instead of data'),
}).strict();

interface Payload { name: string; mimeType: string; buffer: Buffer }

const BASE64_RE = /^[A-Za-z0-9+/\r\n]*={0,2}\s*$/;

/** The call's files, from contents and server paths, refused in words past UPLOAD_MAX_BYTES. */
async function payloads(a: Record<string, unknown>): Promise<Payload[]> {
  const out: Payload[] = [];
  let total = 0;
  const add = (p: Payload): void => {
    total += p.buffer.length;
    if (total > UPLOAD_MAX_BYTES) throw new ForgeError('bad_request', `the files come to more than ${UPLOAD_MAX_BYTES / 1024 / 1024} MiB, the most one call carries`);
    out.push(p);
  };
  for (const f of (a.files as Array<{ name: string; mimeType?: string; data?: string; text?: string }> | undefined) ?? []) {
    if (f.data === undefined && f.text === undefined) throw new ForgeError('bad_request', `give ${f.name} its contents: data (base64) or text`);
    if (f.data !== undefined && f.text !== undefined) throw new ForgeError('bad_request', `give ${f.name} its contents once: data (base64) or text, not both`);
    if (f.text !== undefined) {
      add({ name: basename(f.name), mimeType: f.mimeType ?? 'text/plain', buffer: Buffer.from(f.text, 'utf8') });
      continue;
    }
    if (!BASE64_RE.test(f.data!)) throw new ForgeError('bad_request', `the data of ${f.name} is not base64; give text instead for contents that are text`);
    add({ name: basename(f.name), mimeType: f.mimeType ?? 'application/octet-stream', buffer: Buffer.from(f.data!, 'base64') });
  }
  for (const path of (a.paths as string[] | undefined) ?? []) {
    const s = await stat(path).catch(() => undefined);
    if (!s?.isFile()) throw new ForgeError('bad_request', `${path} is not a file on the server; send the file's contents as files instead`);
    if (total + s.size > UPLOAD_MAX_BYTES) throw new ForgeError('bad_request', `the files come to more than ${UPLOAD_MAX_BYTES / 1024 / 1024} MiB, the most one call carries`);
    add({ name: basename(path), mimeType: 'application/octet-stream', buffer: await readFile(path) });
  }
  return out;
}

/** Page-side: a drop of files and data on the element, as a drag from outside the page ends. */
const DROP_SCRIPT = `(el, { files, data }) => {
  const dt = new DataTransfer();
  for (const f of files) {
    const bytes = Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0));
    dt.items.add(new File([bytes], f.name, { type: f.type }));
  }
  for (const [type, value] of Object.entries(data)) dt.setData(type, value);
  const r = el.getBoundingClientRect();
  const at = { bubbles: true, cancelable: true, composed: true, clientX: r.left + r.width / 2, clientY: r.top + r.height / 2, dataTransfer: dt };
  el.dispatchEvent(new DragEvent('dragenter', at));
  el.dispatchEvent(new DragEvent('dragover', at));
  el.dispatchEvent(new DragEvent('drop', at));
}`;

export const FILE_TOOLS: ToolDef[] = [
  {
    name: 'browser_file_upload',
    description: 'Answer the file chooser open on your current tab: files carries their contents (data, base64, or text), paths names files on the server\'s disk; neither cancels the chooser.',
    schema: z.object({
      files: z.array(fileShape).optional().describe(`Files by their contents, ${UPLOAD_MAX_BYTES / 1024 / 1024} MiB in all at most`),
      paths: z.array(z.string()).optional().describe('Absolute paths of files on the server'),
    }).strict(),
    run: (a, ctx, p) => onTab(p, ctx, 'browser_file_upload', 'uploading', async (tab) => {
      const chooser = tab.fileChooser;
      if (!chooser) throw new ForgeError('bad_request', `no file chooser is open on tab ${tab.number} (${tab.pageId}); click the page's file input first`);
      const files = await payloads(a);
      if (files.length > 1 && !chooser.isMultiple()) throw new ForgeError('bad_request', `the file chooser on tab ${tab.number} takes one file, not ${files.length}`);
      tab.fileChooser = undefined;
      p.chooserAnswered(tab);
      await chooser.setFiles(files, { timeout: PAGE_ACTION_TIMEOUT_MS });
      const said = files.length ? `Chose ${files.map((f) => `${f.name} (${f.buffer.length} bytes)`).join(', ')}.` : 'Cancelled the file chooser.';
      return `### Result\n${said}\n${await pageState(tab, true, p)}`;
    }, { allowChooser: true }),
  },
  {
    name: 'browser_drop',
    description: 'Drop files or data on an element of your current tab, as if dragged from outside the page. Give files (contents: data in base64, or text), paths (on the server) or data (MIME type to text), at least one.',
    schema: z.object({
      ...elementArgs,
      files: z.array(fileShape).optional().describe(`Files by their contents, ${UPLOAD_MAX_BYTES / 1024 / 1024} MiB in all at most`),
      paths: z.array(z.string()).optional().describe('Absolute paths of files on the server'),
      data: z.record(z.string(), z.string()).optional().describe('Data by MIME type, such as {"text/plain": "hello", "text/uri-list": "https://example.com"}'),
    }).strict(),
    run: (a, ctx, p) => onTab(p, ctx, 'browser_drop', 'dropping', async (tab) => {
      const data = (a.data as Record<string, string> | undefined) ?? {};
      if (!(a.files as unknown[] | undefined)?.length && !(a.paths as unknown[] | undefined)?.length && !Object.keys(data).length) {
        throw new ForgeError('bad_request', 'give something to drop: files, paths or data');
      }
      const loc = await locate(tab, targetOf(a));
      const files = (await payloads(a)).map((f) => ({ name: f.name, type: f.mimeType, b64: f.buffer.toString('base64') }));
      await loc.scrollIntoViewIfNeeded({ timeout: PAGE_ACTION_TIMEOUT_MS });
      const drop = new Function('el', 'arg', `return (${DROP_SCRIPT})(el, arg)`) as (el: unknown, arg: unknown) => void;
      return actionAnswer(p, tab, 'drop', () => loc.evaluate(drop, { files, data }, { timeout: PAGE_ACTION_TIMEOUT_MS }));
    }),
  },
];

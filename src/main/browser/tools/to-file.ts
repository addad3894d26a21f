/**
 * `filename` on a reading tool (snapshot, console, requests, evaluate): Playwright MCP writes the
 * text to its own disk instead of answering it; forge keeps it as one of the session's files and
 * answers its link, which an agent on another machine reads with resources/read.
 */
import { z } from 'zod';
import type { ToolAnswer } from '../../mcp/context.js';
import type { Tab } from '../tabs.js';
import { header } from './page-state.js';
import { mimeOf, type AgentFile } from './seat-files.js';
import type { BrowserAnswer } from './tool-def.js';

export const filenameArg = z.string().optional()
  .describe('Keep the result as a file of this name, linked in the answer (read it with resources/read), instead of answering it as text; nothing is saved on the server');

/** Puts a tool's text into a file when the call named one: `keep` is handed to the tool's work. */
export type Keep = (tab: Tab, what: string, text: string) => string;

/**
 * Runs `call` with a `keep` that, when `filename` is given, turns the text into a kept file and
 * answers a line naming it; the file rides the answer only if that line did (a dialog that cut
 * the call short answers without it).
 */
export async function answerOrFile(filename: unknown, call: (keep: Keep) => Promise<ToolAnswer>): Promise<BrowserAnswer> {
  let file: AgentFile | undefined;
  let said = '';
  const r = await call((tab, what, text) => {
    if (typeof filename !== 'string') return text;
    const name = filename.replace(/^.*[\\/]/, '') || `${what.toLowerCase().replace(/\W+/g, '-')}-${Date.now()}.txt`;
    const type = mimeOf(name);
    file = { name, mimeType: type === 'application/octet-stream' ? 'text/plain' : type, data: Buffer.from(text), description: `${what} of tab ${tab.number}` };
    said = `- ${what} of tab ${tab.number} (${tab.pageId}) kept as ${name}, ${file.data.length} bytes, linked below: read it with resources/read`;
    return ['### Result', said, header(tab)].join('\n');
  });
  return file && r.text.includes(said) ? { ...r, files: [file] } : r;
}

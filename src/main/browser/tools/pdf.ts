/**
 * The pdf group ([agent] caps = ["pdf"]): the seat's tab printed to PDF by the host's own Chromium
 * (its print path works headful too), answered as a file the agent reads with resources/read.
 * Nothing is written to the server's disk: `filename` only names the file.
 */
import { z } from 'zod';
import { ForgeError } from '../../../shared/errors.js';
import { header } from './page-state.js';
import { onTab } from './on-tab.js';
import type { BrowserAnswer, ToolDef } from './tool-def.js';
import { SEAT_FILE_MAX_BYTES } from './seat-files.js';

/** Longest a print may take, ms: a long page prints in seconds; past this the page is stuck, not long. */
const PDF_TIMEOUT_MS = 60_000;

export const PDF_TOOLS: ToolDef[] = [
  {
    name: 'browser_pdf_save',
    cap: 'pdf',
    description: 'Print your current tab to PDF, answered as a file you read with resources/read (nothing is saved on the server).',
    schema: z.object({ filename: z.string().optional().describe('A name for the file, page-<time>.pdf by default') }).strict(),
    run: async (a, ctx, p) => {
      let pdf: Buffer | undefined;
      const name = (a.filename as string | undefined)?.replace(/^.*[\\/]/, '') || `page-${Date.now()}.pdf`;
      const r = await onTab(p, ctx, 'browser_pdf_save', 'printing to PDF', async (tab) => {
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new ForgeError('timeout', `the page in tab ${tab.number} (${tab.pageId}) did not print within ${PDF_TIMEOUT_MS / 1000} s`)), PDF_TIMEOUT_MS); });
        try {
          pdf = await Promise.race([tab.page.pdf({ printBackground: true }), late]);
        } finally {
          clearTimeout(timer);
        }
        if (pdf.length > SEAT_FILE_MAX_BYTES) {
          const mib = (pdf.length / 1024 / 1024).toFixed(1);
          pdf = undefined;
          throw new ForgeError('bad_request', `the PDF of tab ${tab.number} is ${mib} MiB, over the ${SEAT_FILE_MAX_BYTES / 1024 / 1024} MiB a file may be`);
        }
        return ['### Result', `- Printed tab ${tab.number} (${tab.pageId}) to ${name}, ${pdf.length} bytes of application/pdf, linked below (read it with resources/read)`, header(tab)].join('\n');
      });
      const answer: BrowserAnswer = { ...r };
      // A dialog that opened meanwhile answers without the file.
      if (pdf && r.text.includes('### Result')) answer.files = [{ name, mimeType: 'application/pdf', data: pdf, description: `Tab printed to PDF` }];
      return answer;
    },
  },
];

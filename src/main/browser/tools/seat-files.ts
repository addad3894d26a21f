/**
 * Files an agent on another machine can read: a tool's output too large to carry inline (a PDF, a
 * trace, a storage state) is kept here, in the MCP session's own store, and answered as a
 * `resource_link` the agent reads with resources/read. Nothing is written to the server's disk,
 * and one session never lists or reads another's files.
 */
import { randomBytes } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ForgeError } from '../../../shared/errors.js';

/** Files one session keeps: the oldest goes first (an agent reads a file soon after it is made). */
export const SEAT_FILES_MAX = 20;
/** Bytes one session keeps over all its files: a few PDFs or traces, not a disk's worth in memory. */
export const SEAT_FILES_MAX_BYTES = 64 * 1024 * 1024;
/** Largest single file, bytes: base64 of it still fits one resources/read answer a client takes. */
export const SEAT_FILE_MAX_BYTES = 32 * 1024 * 1024;

const SCHEME = 'forge';
const TEMPLATE = `${SCHEME}://files/{id}`;

/** Types by a file's extension, for a download the browser kept without its own. */
const TYPES: Record<string, string> = {
  txt: 'text/plain', csv: 'text/csv', html: 'text/html', json: 'application/json', pdf: 'application/pdf',
  md: 'text/markdown', log: 'text/plain', yaml: 'text/yaml', yml: 'text/yaml',
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif', zip: 'application/zip', webm: 'video/webm',
};

export function mimeOf(name: string): string {
  return TYPES[/\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase() ?? ''] ?? 'application/octet-stream';
}

export interface AgentFile { name: string; mimeType: string; data: Buffer; description?: string }

interface Kept extends AgentFile { id: string; uri: string; at: number }

export interface FileLink { type: 'resource_link'; uri: string; name: string; mimeType: string; size: number; description?: string }

export class SeatFiles {
  private files = new Map<string, Kept>();
  private bytes = 0;
  /** Files that went to make room, for the words of a read that comes too late. */
  dropped = 0;

  /** Keeps the file (dropping the oldest past the bounds) and answers the link to it. */
  add(file: AgentFile): FileLink {
    if (file.data.length > SEAT_FILE_MAX_BYTES) {
      throw new ForgeError('bad_request', `${file.name} is ${(file.data.length / 1024 / 1024).toFixed(1)} MiB, over the ${SEAT_FILE_MAX_BYTES / 1024 / 1024} MiB one file may be`);
    }
    const id = randomBytes(9).toString('base64url');
    const kept: Kept = { ...file, id, uri: `${SCHEME}://files/${id}`, at: Date.now() };
    this.files.set(id, kept);
    this.bytes += file.data.length;
    for (const [oldId, old] of this.files) {
      if (this.files.size <= SEAT_FILES_MAX && this.bytes <= SEAT_FILES_MAX_BYTES) break;
      if (oldId === id) break;
      this.files.delete(oldId);
      this.bytes -= old.data.length;
      this.dropped++;
    }
    return { type: 'resource_link', uri: kept.uri, name: file.name, mimeType: file.mimeType, size: file.data.length, ...(file.description ? { description: file.description } : {}) };
  }

  /** Serves the session's files under forge://files/{id}, listed newest last. */
  register(server: McpServer): void {
    const template = new ResourceTemplate(TEMPLATE, {
      list: () => ({ resources: [...this.files.values()].map((f) => ({ uri: f.uri, name: f.name, mimeType: f.mimeType, ...(f.description ? { description: f.description } : {}) })) }),
    });
    server.registerResource('files', template, { description: 'Files your browser tools made (PDFs, traces, storage states), kept for this session only', mimeType: 'application/octet-stream' }, (uri, vars) => {
      const f = this.files.get(String(vars.id));
      if (!f) {
        const why = this.dropped ? `: a session keeps its last ${SEAT_FILES_MAX} files (${SEAT_FILES_MAX_BYTES / 1024 / 1024} MiB), and older ones went` : '';
        throw new ForgeError('bad_request', `${uri.href} is not one of this session's files${why}`);
      }
      const text = /^(text\/|application\/json)/.test(f.mimeType);
      return { contents: [text ? { uri: f.uri, mimeType: f.mimeType, text: f.data.toString('utf8') } : { uri: f.uri, mimeType: f.mimeType, blob: f.data.toString('base64') }] };
    });
  }
}

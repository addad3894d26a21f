/**
 * Downloads between nodes, run in the relay thread beside its download door. A page's download is
 * kept on the node hosting its tab; the person who controls that tab may be connected to any node,
 * and their client fetches `/download` from that node. That node reads the file through the node
 * that kept it: request and reply over NATS, a piece at a time (a download may be larger than one
 * NATS message), each piece asked with the link itself, which the keeping node checks as its own
 * door does. So no node reads another node's disk, and a link opens one kept download on every
 * node, as on the node that kept it.
 */
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { DownloadRefused } from '../../workers/relay/download-path.js';
import { ownClaims, readOwnDownload, type DownloadDoor } from '../../workers/relay/downloads.js';
import { DOWNLOAD_MAX_BYTES } from '../../shared/limits.js';
import { packOp, subjects, unpackOp, type DownloadAnswer, type DownloadAsk } from './protocol.js';

/** Bytes of one piece: well under nats-server's 1 MB default max_payload, so no cluster needs more. */
export const DOWNLOAD_PIECE_BYTES = 512 * 1024;
/** How long the keeping node has to answer one piece, ms: a disk read of one piece, on a busy node. */
export const DOWNLOAD_PIECE_TIMEOUT_MS = 10_000;

export class DownloadBridge {
  private readonly sub: Subscription;

  constructor(private readonly nc: NatsConnection, private readonly node: string, door: DownloadDoor) {
    this.sub = nc.subscribe(subjects.download(node, '*'), {
      callback: (_e, m) => {
        void (async () => {
          let answer: DownloadAnswer;
          try {
            const ask = unpackOp<DownloadAsk>(m.data);
            if (!ask || typeof ask.k !== 'string' || !Number.isSafeInteger(ask.at) || ask.at < 0) throw new DownloadRefused('400 Bad Request', 'the ask for a piece of a download could not be read');
            const claims = ownClaims(door, ask.k);
            const piece = await readOwnDownload(door, claims, ask.at, DOWNLOAD_PIECE_BYTES);
            answer = { ok: true, size: piece.size, data: piece.data };
            // The last piece handed over: the client has the whole file.
            if (ask.at + piece.data.byteLength >= piece.size) door.fetched(piece.path);
          } catch (e) {
            answer = e instanceof DownloadRefused ? { ok: false, status: e.status, words: e.message } : { ok: false, status: '410 Gone', words: 'the download is no longer kept on the server' };
          }
          try { m.respond(packOp(answer)); } catch { /* the asking node is gone */ }
        })();
      },
    });
  }

  /** The whole download node `owner` kept, read through it a piece at a time; refused in the owner's words. */
  async fetch(owner: string, token: string, name: string): Promise<Uint8Array> {
    const pieces: Uint8Array[] = [];
    let at = 0;
    let size = Infinity;
    while (at < size) {
      let reply: Msg;
      try {
        reply = await this.nc.request(subjects.download(owner, this.node), packOp({ k: token, at }), { timeout: DOWNLOAD_PIECE_TIMEOUT_MS });
      } catch {
        throw new DownloadRefused('504 Gateway Timeout', `node ${owner}, which kept ${name}, did not answer; try again`);
      }
      const a = unpackOp<DownloadAnswer>(reply.data);
      if (!a) throw new DownloadRefused('502 Bad Gateway', `node ${owner}, which kept ${name}, answered something that is not a piece of it`);
      if (!a.ok) throw new DownloadRefused(a.status, a.words);
      if (a.size > DOWNLOAD_MAX_BYTES || (size !== Infinity && a.size !== size) || (a.data.byteLength === 0 && at < a.size)) {
        throw new DownloadRefused('502 Bad Gateway', `node ${owner} sent ${name} in pieces that do not fit together`);
      }
      size = a.size;
      pieces.push(a.data);
      at += a.data.byteLength;
    }
    return Buffer.concat(pieces);
  }

  close(): void { this.sub.unsubscribe(); }
}

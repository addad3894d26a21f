/**
 * A WebM file from VP8 key frames: the Matroska container (EBML elements) around frames that a
 * lossy WebP already holds, so a take needs no video encoder of its own. Every frame is a key
 * frame, so any frame can be shown alone and a player seeks to any of them.
 *
 *   EBML header · Segment [ Info (ms timescale, duration) · Tracks (one V_VP8 track) · Chapters? · Cluster… ]
 *   Cluster = Timecode (ms) · SimpleBlock… (track 1, timecode relative to the cluster, key frame)
 */

/** A frame: VP8 key-frame data and when it was shown, ms from the take's start. */
export interface VideoFrame { vp8: Buffer; atMs: number }

/** A chapter mark: its title (and description) from `atMs`, ms from the take's start. */
export interface VideoChapter { title: string; description?: string; atMs: number }

/** Longest cluster, ms: a block's timecode is a signed 16-bit offset from its cluster's. */
const CLUSTER_MAX_MS = 30_000;
/** Matroska's time unit in ns: 1 ms, so every timecode below is in milliseconds. */
const TIMECODE_SCALE_NS = 1_000_000;

const ID = {
  EBML: 0x1a45dfa3, EBMLVersion: 0x4286, EBMLReadVersion: 0x42f7, EBMLMaxIDLength: 0x42f2, EBMLMaxSizeLength: 0x42f3,
  DocType: 0x4282, DocTypeVersion: 0x4287, DocTypeReadVersion: 0x4285,
  Segment: 0x18538067, Info: 0x1549a966, TimecodeScale: 0x2ad7b1, Duration: 0x4489, MuxingApp: 0x4d80, WritingApp: 0x5741,
  Tracks: 0x1654ae6b, TrackEntry: 0xae, TrackNumber: 0xd7, TrackUID: 0x73c5, TrackType: 0x83, FlagLacing: 0x9c, CodecID: 0x86,
  Video: 0xe0, PixelWidth: 0xb0, PixelHeight: 0xba,
  Cluster: 0x1f43b675, Timecode: 0xe7, SimpleBlock: 0xa3,
  Chapters: 0x1043a770, EditionEntry: 0x45b9, EditionUID: 0x45bc, ChapterAtom: 0xb6, ChapterUID: 0x73c4,
  ChapterTimeStart: 0x91, ChapterTimeEnd: 0x92, ChapterDisplay: 0x80, ChapString: 0x85, ChapLanguage: 0x437c,
} as const;

function idBytes(id: number): Buffer {
  const out: number[] = [];
  for (let v = id; v > 0; v = Math.floor(v / 256)) out.unshift(v & 0xff);
  return Buffer.from(out);
}

/** An element size as an EBML variable-length integer, in as few bytes as it fits. */
function sizeBytes(n: number): Buffer {
  for (let len = 1; len <= 8; len++) {
    if (n < 2 ** (7 * len) - 1) {
      const b = Buffer.alloc(len);
      let v = n;
      for (let i = len - 1; i >= 0; i--) { b[i] = v & 0xff; v = Math.floor(v / 256); }
      b[0] |= 0x80 >> (len - 1);
      return b;
    }
  }
  throw new RangeError(`an element of ${n} bytes is past what EBML sizes`);
}

function el(id: number, ...body: Buffer[]): Buffer {
  const data = Buffer.concat(body);
  return Buffer.concat([idBytes(id), sizeBytes(data.length), data]);
}

function uint(id: number, v: number): Buffer {
  const out: number[] = [];
  for (let x = v; x > 0; x = Math.floor(x / 256)) out.unshift(x & 0xff);
  return el(id, Buffer.from(out.length ? out : [0]));
}

function float(id: number, v: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeDoubleBE(v);
  return el(id, b);
}

const str = (id: number, s: string): Buffer => el(id, Buffer.from(s, 'ascii'));
const utf8 = (id: number, s: string): Buffer => el(id, Buffer.from(s, 'utf8'));

/** The Chapters element: one edition, one atom a mark, each lasting to the next (the last to the end); times in ns. */
function chaptersOf(chapters: VideoChapter[], durationMs: number): Buffer {
  const ns = (ms: number): number => Math.max(0, Math.round(ms)) * TIMECODE_SCALE_NS;
  const atoms = chapters.map((c, i) => {
    const end = Math.max(c.atMs, i + 1 < chapters.length ? chapters[i + 1].atMs : durationMs);
    const title = c.description ? `${c.title}: ${c.description}` : c.title;
    return el(ID.ChapterAtom, uint(ID.ChapterUID, i + 1), uint(ID.ChapterTimeStart, ns(c.atMs)), uint(ID.ChapterTimeEnd, ns(end)),
      el(ID.ChapterDisplay, utf8(ID.ChapString, title), str(ID.ChapLanguage, 'eng')));
  });
  return el(ID.Chapters, el(ID.EditionEntry, uint(ID.EditionUID, 1), ...atoms));
}

/** The whole file; `durationMs`: the take's length (the last frame shows until then). */
export function webmOf(frames: VideoFrame[], width: number, height: number, durationMs: number, chapters: VideoChapter[] = []): Buffer {
  const header = el(ID.EBML, uint(ID.EBMLVersion, 1), uint(ID.EBMLReadVersion, 1), uint(ID.EBMLMaxIDLength, 4),
    uint(ID.EBMLMaxSizeLength, 8), str(ID.DocType, 'webm'), uint(ID.DocTypeVersion, 2), uint(ID.DocTypeReadVersion, 2));
  const info = el(ID.Info, uint(ID.TimecodeScale, TIMECODE_SCALE_NS), float(ID.Duration, durationMs), str(ID.MuxingApp, 'forge'), str(ID.WritingApp, 'forge'));
  const tracks = el(ID.Tracks, el(ID.TrackEntry, uint(ID.TrackNumber, 1), uint(ID.TrackUID, 1), uint(ID.TrackType, 1),
    uint(ID.FlagLacing, 0), str(ID.CodecID, 'V_VP8'), el(ID.Video, uint(ID.PixelWidth, width), uint(ID.PixelHeight, height))));
  const clusters: Buffer[] = [];
  let start = -1;
  let blocks: Buffer[] = [];
  const close = (): void => { if (blocks.length) clusters.push(el(ID.Cluster, uint(ID.Timecode, start), ...blocks)); blocks = []; };
  for (const f of frames) {
    const at = Math.max(0, Math.round(f.atMs));
    if (start < 0 || at - start > CLUSTER_MAX_MS) { close(); start = at; }
    const head = Buffer.alloc(4);
    head[0] = 0x81; // track 1, as a one-byte variable-length integer
    head.writeInt16BE(at - start, 1);
    head[3] = 0x80; // a key frame
    blocks.push(el(ID.SimpleBlock, head, f.vp8));
  }
  close();
  const marks = chapters.length ? [chaptersOf(chapters, durationMs)] : [];
  return Buffer.concat([header, el(ID.Segment, info, tracks, ...marks, ...clusters)]);
}

/** The VP8 key frame inside a lossy WebP (its `VP8 ` chunk), or undefined for a lossless one. */
export function vp8OfWebp(webp: Buffer): Buffer | undefined {
  if (webp.toString('ascii', 0, 4) !== 'RIFF' || webp.toString('ascii', 8, 12) !== 'WEBP') return undefined;
  for (let at = 12; at + 8 <= webp.length;) {
    const kind = webp.toString('ascii', at, at + 4);
    const size = webp.readUInt32LE(at + 4);
    if (kind === 'VP8 ') return webp.subarray(at + 8, at + 8 + size);
    at += 8 + size + (size & 1);
  }
  return undefined;
}

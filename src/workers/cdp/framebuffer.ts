/**
 * Xvfb's `-fbdir` framebuffer: an XWD file in memory that the X server paints into (Chromium
 * puts each composited frame there with XShmPutImage). Pixels are BGRX, 4 bytes, X = 0.
 *
 * The file is mapped into this process (native/fbmap), so a damaged rectangle is read where it
 * lies: no syscall, and no copy of the screen's columns outside the tab's viewport. Reading with
 * pread instead cost the simple page ~3 ms of its ~7 ms of capture CPU per frame. Where the
 * addon did not build, rows are read with pread.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { ForgeError } from '../../shared/errors.js';
import { fbNative, nativeMissing } from './native.js';

/** XWD header fields we need (all big-endian u32): header size, width, height, bpp, bytes per line, colour-map entries. */
const XWD_OFF_HEADER_SIZE = 0;
const XWD_OFF_WIDTH = 16;
const XWD_OFF_HEIGHT = 20;
const XWD_OFF_BITS_PER_PIXEL = 44;
const XWD_OFF_BYTES_PER_LINE = 48;
const XWD_OFF_NCOLORS = 76;
/** One XWD colour-map entry, bytes. */
const XWD_COLOR_BYTES = 12;
/** Bytes read to parse the header (its fixed part is 100 bytes plus the window name). */
const XWD_HEADER_READ = 512;

export class Framebuffer {
  readonly width: number;
  readonly height: number;
  readonly bytesPerLine: number;
  readonly pixelOffset: number;
  /** The screen's pixels in place (BGRX rows of bytesPerLine), when the file could be mapped. */
  private readonly mapped: Uint8Array | null = null;
  /** Why the file is read with pread instead of mapped ('' when mapped). */
  readonly unmappedBecause: string = '';
  private fd: number;

  constructor(fbDir: string, screen = 0) {
    const path = join(fbDir, `Xvfb_screen${screen}`);
    this.fd = openSync(path, 'r');
    const h = Buffer.alloc(XWD_HEADER_READ);
    readSync(this.fd, h, 0, h.length, 0);
    const bpp = h.readUInt32BE(XWD_OFF_BITS_PER_PIXEL);
    if (bpp !== 32) {
      closeSync(this.fd);
      throw new ForgeError('host_start_failed', `the display's framebuffer has ${bpp} bits per pixel; capture needs a 24-bit screen (32 bpp)`);
    }
    this.width = h.readUInt32BE(XWD_OFF_WIDTH);
    this.height = h.readUInt32BE(XWD_OFF_HEIGHT);
    this.bytesPerLine = h.readUInt32BE(XWD_OFF_BYTES_PER_LINE);
    this.pixelOffset = h.readUInt32BE(XWD_OFF_HEADER_SIZE) + h.readUInt32BE(XWD_OFF_NCOLORS) * XWD_COLOR_BYTES;
    const bytes = this.pixelOffset + this.height * this.bytesPerLine;
    if (!fbNative) this.unmappedBecause = nativeMissing;
    else if (this.pixelOffset % 4 !== 0 || this.bytesPerLine % 4 !== 0) this.unmappedBecause = 'its pixels are not 4-byte aligned';
    else {
      try {
        const ab = fbNative.map(path);
        if (ab.byteLength < bytes) this.unmappedBecause = `the file holds ${ab.byteLength} bytes, not ${bytes}`;
        else this.mapped = new Uint8Array(ab, this.pixelOffset, this.height * this.bytesPerLine);
      } catch (e) {
        this.unmappedBecause = (e as Error).message;
      }
    }
  }

  /** Most rows one `rows` call can answer with `scratch` of this many bytes. */
  rowsAtOnce(scratchBytes: number): number {
    return this.mapped ? this.height : Math.max(1, Math.floor(scratchBytes / this.bytesPerLine));
  }

  /**
   * Screen rows `y`..`y+rows` (stride bytesPerLine): a view of the mapped screen, or `scratch`
   * filled by one pread.
   */
  rows(y: number, rows: number, scratch: Uint8Array): Uint8Array {
    if (this.mapped) return this.mapped.subarray(y * this.bytesPerLine, (y + rows) * this.bytesPerLine);
    this.readRows(y, rows, scratch);
    return scratch;
  }

  /**
   * Reads `rows` whole screen rows from row `y` into `into` (stride bytesPerLine), in one pread.
   * Whole rows beat one pread per row of a narrower rectangle: 720 reads of 5 KB cost ~7 ms,
   * one read of 720 full rows (11 MB) ~1.5 ms.
   */
  readRows(y: number, rows: number, into: Uint8Array): void {
    readSync(this.fd, into, 0, rows * this.bytesPerLine, this.pixelOffset + y * this.bytesPerLine);
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }
}

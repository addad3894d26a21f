/*
 * fbmap: the capture's two hot loops.
 *
 * map(path) maps a file (Xvfb's -fbdir framebuffer) into memory, read-only in effect, as an
 * ArrayBuffer. The capture then reads the screen's rows where they lie: no read syscall and no
 * copy of the columns outside a tab's viewport.
 *
 * The mapping is private and writable so that a stray write from JavaScript lands in a private
 * copy of that page instead of crashing the process or drawing on the screen; pages never
 * written keep showing what the X server paints (Linux shares them with the file's page cache).
 * It is unmapped when the ArrayBuffer is collected.
 *
 * release(view) hands the whole pages under a Uint8Array back to the system (madvise
 * MADV_DONTNEED): a frame ring slot nobody reads. Memory private to the process (a
 * SharedArrayBuffer) reads as zeros after it, and stops counting in the process's RSS until it is
 * written again.
 */
#include <node_api.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static void unmap(napi_env env, void *data, void *hint) {
  (void)env;
  munmap(data, (size_t)(uintptr_t)hint);
}

static napi_value fail(napi_env env, const char *what, const char *path) {
  char msg[4096 + 256];
  snprintf(msg, sizeof msg, "%s %s failed: %s", what, path, strerror(errno));
  napi_throw_error(env, NULL, msg);
  return NULL;
}

/* map(path: string): ArrayBuffer over the whole file. */
static napi_value map_file(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  char path[4096];
  size_t len = 0;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 ||
      napi_get_value_string_utf8(env, argv[0], path, sizeof path, &len) != napi_ok) {
    napi_throw_type_error(env, NULL, "map(path) takes a file path");
    return NULL;
  }
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail(env, "open", path);
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_size <= 0) { close(fd); return fail(env, "stat", path); }
  size_t size = (size_t)st.st_size;
  void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  close(fd);
  if (p == MAP_FAILED) return fail(env, "mmap", path);
  napi_value ab;
  if (napi_create_external_arraybuffer(env, p, size, unmap, (void *)(uintptr_t)size, &ab) != napi_ok) {
    munmap(p, size);
    return fail(env, "wrapping the mapping of", path);
  }
  return ab;
}

/* Pixels of a changed row compared at once before looking at them one by one. */
#define SEGMENT_PX 64

static int bytes_of(napi_env env, napi_value v, uint8_t **data, size_t *len) {
  napi_typedarray_type type;
  size_t n;
  void *p;
  size_t off;
  napi_value ab;
  if (napi_get_typedarray_info(env, v, &type, &n, &p, &ab, &off) != napi_ok) return 0;
  size_t el = (type == napi_int32_array || type == napi_uint32_array) ? 4 : 1;
  *data = (uint8_t *)p;
  *len = n * el;
  return 1;
}

static int32_t int_of(napi_env env, napi_value v) {
  int32_t i = 0;
  napi_get_value_int32(env, v, &i);
  return i;
}

/*
 * diffRows(src, srcStridePx, srcX, dx, dy, dw, dh, rgba, seen, w, all, rowMin, rowMax)
 * The same work as bands.ts's writeDamage loop: rows 0..dh of `src` (BGRX, srcStridePx pixels a
 * row, the rectangle's first pixel at srcX) against `seen` (BGRX, w pixels a row, the rectangle
 * at dx,dy); every pixel that differs (or every pixel, with `all`) is written to `seen` and, as
 * opaque RGBA, to `rgba`. rowMin[r]/rowMax[r] get the first and last changed column of row r
 * (relative to dx), or -1. Returns the number of changed rows; throws on any size mismatch.
 */
static napi_value diff_rows(napi_env env, napi_callback_info info) {
  size_t argc = 13;
  napi_value a[13];
  if (napi_get_cb_info(env, info, &argc, a, NULL, NULL) != napi_ok || argc < 13) {
    napi_throw_type_error(env, NULL, "diffRows takes 13 arguments");
    return NULL;
  }
  uint8_t *src, *rgba, *seen, *mn8, *mx8;
  size_t srcLen, rgbaLen, seenLen, mnLen, mxLen;
  if (!bytes_of(env, a[0], &src, &srcLen) || !bytes_of(env, a[7], &rgba, &rgbaLen) || !bytes_of(env, a[8], &seen, &seenLen) ||
      !bytes_of(env, a[11], &mn8, &mnLen) || !bytes_of(env, a[12], &mx8, &mxLen)) {
    napi_throw_type_error(env, NULL, "diffRows takes typed arrays");
    return NULL;
  }
  int32_t stride = int_of(env, a[1]), sx = int_of(env, a[2]), dx = int_of(env, a[3]), dy = int_of(env, a[4]);
  int32_t dw = int_of(env, a[5]), dh = int_of(env, a[6]), w = int_of(env, a[9]);
  bool all = false;
  napi_get_value_bool(env, a[10], &all);
  if (stride < 0 || sx < 0 || dx < 0 || dy < 0 || dw < 0 || dh < 0 || w <= 0 || dx + dw > w ||
      ((uintptr_t)src | (uintptr_t)rgba | (uintptr_t)seen | (uintptr_t)mn8 | (uintptr_t)mx8) % 4 != 0 ||
      (dh > 0 && ((size_t)(dh - 1) * stride + sx + dw) * 4 > srcLen) ||
      (size_t)(dy + dh) * w * 4 > rgbaLen || (size_t)(dy + dh) * w * 4 > seenLen ||
      (size_t)dh * 4 > mnLen || (size_t)dh * 4 > mxLen) {
    napi_throw_range_error(env, NULL, "diffRows: a rectangle outside its buffers");
    return NULL;
  }
  const uint32_t *s32 = (const uint32_t *)src;
  uint32_t *d32 = (uint32_t *)rgba, *h32 = (uint32_t *)seen;
  int32_t *rowMin = (int32_t *)mn8, *rowMax = (int32_t *)mx8;
  int32_t changed = 0;
  for (int32_t row = 0; row < dh; row++) {
    const uint32_t *s = s32 + (size_t)row * stride + sx;
    uint32_t *h = h32 + (size_t)(dy + row) * w + dx;
    uint32_t *d = d32 + (size_t)(dy + row) * w + dx;
    int32_t lo = -1, hi = -1;
    if (all || memcmp(s, h, (size_t)dw * 4) != 0) {
      for (int32_t x0 = 0; x0 < dw; x0 += SEGMENT_PX) {
        int32_t n = dw - x0 < SEGMENT_PX ? dw - x0 : SEGMENT_PX;
        if (!all && memcmp(s + x0, h + x0, (size_t)n * 4) == 0) continue;
        /* The segment's first and last changed pixel; the ones between are rewritten whole (an
         * unchanged pixel gets the value it already holds), a branchless loop the compiler vectorizes. */
        int32_t a = x0, b = x0 + n - 1;
        if (!all) {
          while (s[a] == h[a]) a++;
          while (s[b] == h[b]) b--;
        }
        memcpy(h + a, s + a, (size_t)(b - a + 1) * 4);
        for (int32_t x = a; x <= b; x++) {
          uint32_t v = s[x];
          /* Little-endian BGRX word to RGBA word: swap B and R, alpha 255. */
          d[x] = 0xff000000u | ((v & 0xffu) << 16) | (v & 0xff00u) | ((v >> 16) & 0xffu);
        }
        if (lo < 0) lo = a;
        hi = b;
      }
    }
    rowMin[row] = lo;
    rowMax[row] = hi;
    if (lo >= 0) changed++;
  }
  napi_value out;
  napi_create_int32(env, changed, &out);
  return out;
}

/* release(view: Uint8Array): the bytes of the whole pages inside the view given back. */
static napi_value release_pages(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_typedarray_type type;
  size_t len;
  void *p;
  napi_value ab;
  size_t off;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 ||
      napi_get_typedarray_info(env, argv[0], &type, &len, &p, &ab, &off) != napi_ok || type != napi_uint8_array) {
    napi_throw_type_error(env, NULL, "release(view) takes a Uint8Array");
    return NULL;
  }
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  uintptr_t start = ((uintptr_t)p + page - 1) & ~(page - 1);
  uintptr_t end = ((uintptr_t)p + len) & ~(page - 1);
  double released = 0;
  if (end > start && madvise((void *)start, end - start, MADV_DONTNEED) == 0) released = (double)(end - start);
  napi_value out;
  napi_create_double(env, released, &out);
  return out;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "map", NAPI_AUTO_LENGTH, map_file, NULL, &fn);
  napi_set_named_property(env, exports, "map", fn);
  napi_create_function(env, "diffRows", NAPI_AUTO_LENGTH, diff_rows, NULL, &fn);
  napi_set_named_property(env, exports, "diffRows", fn);
  napi_create_function(env, "release", NAPI_AUTO_LENGTH, release_pages, NULL, &fn);
  napi_set_named_property(env, exports, "release", fn);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)

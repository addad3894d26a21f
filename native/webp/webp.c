/*
 * webp: one lossy WebP encode of a rectangle of opaque RGBA pixels (a frame ring slot), by
 * libwebp directly, on libuv's thread pool.
 *
 * encode(pixels, strideBytes, x, y, w, h, quality, method) returns a Promise of a Buffer with the
 * .webp file. `pixels` is a Uint8Array (a view over shared memory is read in place, never
 * copied); its fourth byte of each pixel is ignored. The caller keeps those bytes unchanged until
 * the promise settles (the encode queue pins the slot for it).
 *
 * Measured on a 1280x720 frame at quality 75, method 0: a file of the same size as sharp's
 * raw → removeAlpha → webp gives, in about two thirds of its CPU time (libvips's pipeline and its
 * alpha pass are the difference).
 */
#include <node_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <webp/encode.h>

typedef struct {
  napi_async_work work;
  napi_deferred deferred;
  napi_ref pixels;
  const uint8_t *first;
  int stride, w, h, method;
  float quality;
  WebPMemoryWriter out;
  int ok;
  int error;
} Job;

static void execute(napi_env env, void *data) {
  (void)env;
  Job *j = (Job *)data;
  WebPConfig cfg;
  WebPPicture pic;
  WebPMemoryWriterInit(&j->out);
  if (!WebPConfigInit(&cfg) || !WebPPictureInit(&pic)) { j->error = -1; return; }
  cfg.quality = j->quality;
  cfg.method = j->method;
  /* YUV straight from RGB, no ARGB copy: what sharp's smartSubsample: false does. */
  pic.use_argb = 0;
  pic.width = j->w;
  pic.height = j->h;
  pic.writer = WebPMemoryWrite;
  pic.custom_ptr = &j->out;
  j->ok = WebPPictureImportRGBX(&pic, j->first, j->stride) && WebPEncode(&cfg, &pic);
  j->error = pic.error_code;
  WebPPictureFree(&pic);
}

static void complete(napi_env env, napi_status status, void *data) {
  Job *j = (Job *)data;
  napi_value result;
  if (status == napi_ok && j->ok) {
    void *copy;
    napi_create_buffer_copy(env, j->out.size, j->out.mem, &copy, &result);
    napi_resolve_deferred(env, j->deferred, result);
  } else {
    char text[96];
    napi_value msg;
    snprintf(text, sizeof text, "the WebP encoder failed on a %dx%d picture (libwebp error %d)", j->w, j->h, j->error);
    napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &msg);
    napi_create_error(env, NULL, msg, &result);
    napi_reject_deferred(env, j->deferred, result);
  }
  WebPMemoryWriterClear(&j->out);
  napi_delete_reference(env, j->pixels);
  napi_delete_async_work(env, j->work);
  free(j);
}

static int int_of(napi_env env, napi_value v, int32_t *out) {
  return napi_get_value_int32(env, v, out) == napi_ok;
}

static napi_value encode(napi_env env, napi_callback_info info) {
  size_t argc = 8;
  napi_value a[8];
  if (napi_get_cb_info(env, info, &argc, a, NULL, NULL) != napi_ok || argc < 8) {
    napi_throw_type_error(env, NULL, "encode takes 8 arguments: pixels, strideBytes, x, y, w, h, quality, method");
    return NULL;
  }
  napi_typedarray_type type;
  size_t len;
  void *p;
  napi_value ab;
  size_t off;
  if (napi_get_typedarray_info(env, a[0], &type, &len, &p, &ab, &off) != napi_ok || type != napi_uint8_array) {
    napi_throw_type_error(env, NULL, "encode takes its pixels as a Uint8Array");
    return NULL;
  }
  int32_t stride, x, y, w, h, method;
  double quality;
  if (!int_of(env, a[1], &stride) || !int_of(env, a[2], &x) || !int_of(env, a[3], &y) || !int_of(env, a[4], &w) ||
      !int_of(env, a[5], &h) || napi_get_value_double(env, a[6], &quality) != napi_ok || !int_of(env, a[7], &method)) {
    napi_throw_type_error(env, NULL, "encode takes numbers after its pixels");
    return NULL;
  }
  if (w < 1 || h < 1 || w > WEBP_MAX_DIMENSION || h > WEBP_MAX_DIMENSION || x < 0 || y < 0 || stride < 0 ||
      (int64_t)(x + w) * 4 > stride || (int64_t)(y + h - 1) * stride + (int64_t)(x + w) * 4 > (int64_t)len) {
    napi_throw_range_error(env, NULL, "encode: the rectangle lies outside its pixels");
    return NULL;
  }
  if (quality < 0 || quality > 100 || method < 0 || method > 6) {
    napi_throw_range_error(env, NULL, "encode: quality is 0-100 and method 0-6");
    return NULL;
  }
  Job *j = (Job *)calloc(1, sizeof(Job));
  if (!j) {
    napi_throw_error(env, NULL, "encode: out of memory");
    return NULL;
  }
  j->first = (const uint8_t *)p + (size_t)y * stride + (size_t)x * 4;
  j->stride = stride;
  j->w = w;
  j->h = h;
  j->quality = (float)quality;
  j->method = method;
  napi_value promise, name;
  napi_create_promise(env, &j->deferred, &promise);
  napi_create_reference(env, a[0], 1, &j->pixels);
  napi_create_string_utf8(env, "forge-webp-encode", NAPI_AUTO_LENGTH, &name);
  napi_create_async_work(env, NULL, name, execute, complete, j, &j->work);
  napi_queue_async_work(env, j->work);
  return promise;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "encode", NAPI_AUTO_LENGTH, encode, NULL, &fn);
  napi_set_named_property(env, exports, "encode", fn);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)

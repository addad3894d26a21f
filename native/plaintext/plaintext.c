/*
 * forge's terminals: whether a flood's bytes are plain text (printable characters, CR, LF, tab,
 * backspace; no escape, no other C0 control, no UTF-8-encoded C1 control), 16 bytes at a time.
 * The screen model's feed asks this of every byte of a flood's batch before it cuts the part that
 * would scroll past the scrollback unread; in JavaScript the walk cost ~0.85 ms per MB.
 */
#include <node_api.h>
#include <stddef.h>
#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Byte i is not plain: a C0 control other than BS, TAB, LF, CR; or 0xC2 followed by 0x80-0x9F. */
static int not_plain_at(const uint8_t *p, size_t n, size_t i) {
  uint8_t b = p[i];
  if (b < 0x20) return !(b == 0x08 || b == 0x09 || b == 0x0a || b == 0x0d);
  if (b == 0xc2) return i + 1 < n && p[i + 1] >= 0x80 && p[i + 1] <= 0x9f;
  return 0;
}

static int is_plain(const uint8_t *p, size_t n) {
  size_t i = 0;
#if defined(__SSE2__)
  const __m128i c1f = _mm_set1_epi8(0x1f), bs = _mm_set1_epi8(0x08), tab = _mm_set1_epi8(0x09),
                lf = _mm_set1_epi8(0x0a), cr = _mm_set1_epi8(0x0d), c2 = _mm_set1_epi8((char)0xc2);
  for (; i + 16 <= n; i += 16) {
    __m128i v = _mm_loadu_si128((const __m128i *)(p + i));
    __m128i ctl = _mm_cmpeq_epi8(_mm_min_epu8(v, c1f), v); /* v <= 0x1f */
    __m128i ok = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, bs), _mm_cmpeq_epi8(v, tab)),
                              _mm_or_si128(_mm_cmpeq_epi8(v, lf), _mm_cmpeq_epi8(v, cr)));
    __m128i bad = _mm_or_si128(_mm_andnot_si128(ok, ctl), _mm_cmpeq_epi8(v, c2));
    if (_mm_movemask_epi8(bad) == 0) continue;
    for (size_t j = i; j < i + 16; j++)
      if (not_plain_at(p, n, j)) return 0;
  }
#endif
  for (; i < n; i++)
    if (not_plain_at(p, n, i)) return 0;
  return 1;
}

static napi_value plain(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value a[1];
  napi_typedarray_type type;
  size_t length = 0, offset = 0;
  void *data = NULL;
  napi_value buffer;
  if (napi_get_cb_info(env, info, &argc, a, NULL, NULL) != napi_ok || argc < 1 ||
      napi_get_typedarray_info(env, a[0], &type, &length, &data, &buffer, &offset) != napi_ok ||
      type != napi_uint8_array) {
    napi_throw_type_error(env, NULL, "isPlain takes a Uint8Array");
    return NULL;
  }
  napi_value out;
  napi_get_boolean(env, length == 0 || is_plain((const uint8_t *)data, length), &out);
  return out;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "isPlain", NAPI_AUTO_LENGTH, plain, NULL, &fn);
  napi_set_named_property(env, exports, "isPlain", fn);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)

/*
 * forge's server process and glibc's allocator. glibc starts serving blocks past 128 KiB with a
 * mapping of their own, returned to the system at free, but raises that threshold to the size of
 * each such block freed (up to 32 MiB): after one multi-megabyte viewer message has come and gone,
 * every later block under its size comes from the arenas, whose freed pages stay resident. Pinning
 * the threshold with mallopt keeps it where it started, in every thread's arena. mallinfo2 says
 * what the arenas hold, for /metrics. malloc_trim hands the arenas' free pages back to the system:
 * free() alone returns only the top of an arena, so pages freed below a live block stay resident.
 */
#include <node_api.h>
#include <malloc.h>

static napi_value pin_mmap_threshold(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value a[1];
  int64_t bytes = 0;
  if (napi_get_cb_info(env, info, &argc, a, NULL, NULL) != napi_ok || argc < 1 ||
      napi_get_value_int64(env, a[0], &bytes) != napi_ok || bytes <= 0 || bytes > (int64_t)1 << 30) {
    napi_throw_type_error(env, NULL, "pinMmapThreshold takes a size in bytes, up to 1 GiB");
    return NULL;
  }
  napi_value ok;
  napi_get_boolean(env, mallopt(M_MMAP_THRESHOLD, (int)bytes) == 1, &ok);
  return ok;
}

static void set_number(napi_env env, napi_value obj, const char *name, size_t v) {
  napi_value n;
  napi_create_double(env, (double)v, &n);
  napi_set_named_property(env, obj, name, n);
}

static napi_value arenas(napi_env env, napi_callback_info info) {
  (void)info;
  struct mallinfo2 m = mallinfo2();
  napi_value out;
  napi_create_object(env, &out);
  /* arena: bytes the arenas took from the system; fordblks: of those, free; hblkhd: blocks with a mapping of their own. */
  set_number(env, out, "heldBytes", m.arena);
  set_number(env, out, "freeBytes", m.fordblks);
  set_number(env, out, "mappedBytes", m.hblkhd);
  return out;
}

static napi_value trim(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value released;
  napi_get_boolean(env, malloc_trim(0) == 1, &released);
  return released;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "pinMmapThreshold", NAPI_AUTO_LENGTH, pin_mmap_threshold, NULL, &fn);
  napi_set_named_property(env, exports, "pinMmapThreshold", fn);
  napi_create_function(env, "arenas", NAPI_AUTO_LENGTH, arenas, NULL, &fn);
  napi_set_named_property(env, exports, "arenas", fn);
  napi_create_function(env, "trim", NAPI_AUTO_LENGTH, trim, NULL, &fn);
  napi_set_named_property(env, exports, "trim", fn);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)

/*
 * fbmap: maps a file (Xvfb's -fbdir framebuffer) into memory, read-only in effect, as an
 * ArrayBuffer. The capture then reads the screen's rows where they lie: no read syscall and no
 * copy of the columns outside a tab's viewport.
 *
 * The mapping is private and writable so that a stray write from JavaScript lands in a private
 * copy of that page instead of crashing the process or drawing on the screen; pages never
 * written keep showing what the X server paints (Linux shares them with the file's page cache).
 * It is unmapped when the ArrayBuffer is collected.
 */
#include <node_api.h>
#include <errno.h>
#include <fcntl.h>
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
  char msg[512];
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

static napi_value init(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "map", NAPI_AUTO_LENGTH, map_file, NULL, &fn);
  napi_set_named_property(env, exports, "map", fn);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)

/*
 * forge's terminals: a PTY's line modes read in the process. On Linux, termios requests on a PTY's
 * master act on its other side (the shell's terminal), so tcgetattr on the master fd reads what the
 * program in the terminal set: ECHO off with ICANON on is a program reading a secret. This replaces
 * spawning `stty`, which blocks the calling thread for the fork of a large process (~18 ms).
 */
#include <node_api.h>
#include <errno.h>
#include <string.h>
#include <termios.h>

static napi_value line_modes(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value a[1];
  int32_t fd = -1;
  if (napi_get_cb_info(env, info, &argc, a, NULL, NULL) != napi_ok || argc < 1 ||
      napi_get_value_int32(env, a[0], &fd) != napi_ok || fd < 0) {
    napi_throw_type_error(env, NULL, "lineModes takes a file descriptor");
    return NULL;
  }
  struct termios t;
  if (tcgetattr(fd, &t) != 0) {
    napi_throw_error(env, NULL, strerror(errno));
    return NULL;
  }
  napi_value out, echo, icanon;
  napi_create_object(env, &out);
  napi_get_boolean(env, (t.c_lflag & ECHO) != 0, &echo);
  napi_get_boolean(env, (t.c_lflag & ICANON) != 0, &icanon);
  napi_set_named_property(env, out, "echo", echo);
  napi_set_named_property(env, out, "icanon", icanon);
  return out;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "lineModes", NAPI_AUTO_LENGTH, line_modes, NULL, &fn);
  napi_set_named_property(env, exports, "lineModes", fn);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)

// The example guard hook in C: blocks destructive shell commands, turns `git push --force` into
// `--force-with-lease`, and adds context to every prompt. The same policy is written in Rust,
// Python and JavaScript; scenarios.toml says what it must do.
//
// Build: ./build.sh (wit-bindgen c, clang + wasi-libc, wasm-tools component new).
// Test:  hookhost test --plugin hook.wasm scenarios.toml
//
// The types come from gen/hook.h, which `wit-bindgen c` writes from wit/hooks.wit. Strings in
// the bindings are UTF-8 (pointer + length, not NUL-terminated). What a hook returns must be
// heap memory: the bindings free it after the host has read it. The host gives every event a
// fresh instance, so nothing here outlives one call.

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hook.h"

typedef hookhost_hooks_types_event_t event_t;
typedef hookhost_hooks_types_decision_t decision_t;

static const char *const SHELL_TOOLS[] = {"bash", "Bash", "shell", "run_shell_command", "exec_command"};
static const char *const ROOT_OR_HOME[] = {"/", "/*", "~", "~/", "$HOME"};
static const char USER_MESSAGE[] = "The guard hook blocked this command: it would destroy data.";
static const char PROMPT_CONTEXT[] =
    "Guard hook: destructive shell commands are blocked; git push --force becomes --force-with-lease.";

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

// ---- a little JSON: just what finding one string member of an object needs ----------------

static const char *skip_ws(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
  return p;
}

// Appends the UTF-8 encoding of code point `c` to `out`; returns the new end.
static char *put_utf8(char *out, unsigned c) {
  if (c < 0x80) {
    *out++ = (char)c;
  } else if (c < 0x800) {
    *out++ = (char)(0xC0 | (c >> 6));
    *out++ = (char)(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    *out++ = (char)(0xE0 | (c >> 12));
    *out++ = (char)(0x80 | ((c >> 6) & 0x3F));
    *out++ = (char)(0x80 | (c & 0x3F));
  } else {
    *out++ = (char)(0xF0 | (c >> 18));
    *out++ = (char)(0x80 | ((c >> 12) & 0x3F));
    *out++ = (char)(0x80 | ((c >> 6) & 0x3F));
    *out++ = (char)(0x80 | (c & 0x3F));
  }
  return out;
}

static bool hex4(const char *p, const char *end, unsigned *value) {
  if (end - p < 4) return false;
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    char c = p[i];
    v <<= 4;
    if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
    else return false;
  }
  *value = v;
  return true;
}

// Reads the string starting at `p` (on its opening quote). Returns the position after the
// closing quote, or NULL when it is not a valid string. With `out`, stores the decoded text there
// (malloc'd, NUL-terminated).
static const char *read_string(const char *p, const char *end, char **out) {
  if (p >= end || *p != '"') return NULL;
  p++;
  // Decoded text is never longer than its JSON form.
  char *buf = out ? malloc((size_t)(end - p) + 1) : NULL;
  char *w = buf;
  while (p < end && *p != '"') {
    char c = *p++;
    if (c != '\\') {
      if (w) *w++ = c;
      continue;
    }
    if (p >= end) break;
    char e = *p++;
    unsigned cp;
    switch (e) {
      case '"': cp = '"'; break;
      case '\\': cp = '\\'; break;
      case '/': cp = '/'; break;
      case 'b': cp = '\b'; break;
      case 'f': cp = '\f'; break;
      case 'n': cp = '\n'; break;
      case 'r': cp = '\r'; break;
      case 't': cp = '\t'; break;
      case 'u': {
        if (!hex4(p, end, &cp)) goto bad;
        p += 4;
        unsigned low;
        if (cp >= 0xD800 && cp < 0xDC00 && end - p >= 6 && p[0] == '\\' && p[1] == 'u' && hex4(p + 2, end, &low) &&
            low >= 0xDC00 && low < 0xE000) {
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          p += 6;
        }
        break;
      }
      default: goto bad;
    }
    if (w) w = put_utf8(w, cp);
  }
  if (p >= end) goto bad;
  if (out) {
    *w = '\0';
    *out = buf;
  }
  return p + 1;
bad:
  free(buf);
  return NULL;
}

// Skips the JSON value at `p`; returns the position after it, or NULL when it is malformed.
static const char *skip_value(const char *p, const char *end) {
  p = skip_ws(p, end);
  if (p >= end) return NULL;
  if (*p == '"') return read_string(p, end, NULL);
  if (*p == '{' || *p == '[') {
    int depth = 0;
    while (p < end) {
      if (*p == '"') {
        p = read_string(p, end, NULL);
        if (!p) return NULL;
        continue;
      }
      if (*p == '{' || *p == '[') depth++;
      if (*p == '}' || *p == ']') depth--;
      p++;
      if (depth == 0) return p;
    }
    return NULL;
  }
  // A number, true, false or null.
  const char *start = p;
  while (p < end && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') p++;
  return p > start ? p : NULL;
}

// Finds member `key` of the JSON object `text` (the last one, as JSON parsers keep). Sets
// [*start, *stop) to its value and returns true when present.
static bool find_member(const char *text, size_t len, const char *key, const char **start, const char **stop) {
  const char *end = text + len;
  const char *p = skip_ws(text, end);
  bool found = false;
  if (p >= end || *p != '{') return false;
  p = skip_ws(p + 1, end);
  if (p < end && *p == '}') return false;
  while (p < end) {
    char *name = NULL;
    p = read_string(p, end, &name);
    if (!p) return false;
    p = skip_ws(p, end);
    if (p >= end || *p != ':') {
      free(name);
      return false;
    }
    const char *value = skip_ws(p + 1, end);
    p = skip_value(value, end);
    if (!p) {
      free(name);
      return false;
    }
    if (strcmp(name, key) == 0) {
      *start = value;
      *stop = p;
      found = true;
    }
    free(name);
    p = skip_ws(p, end);
    if (p < end && *p == ',') {
      p = skip_ws(p + 1, end);
      continue;
    }
    return found && p < end && *p == '}';
  }
  return false;
}

// Appends `s` to `out` as a JSON string (quotes included); returns the new end. `out` must have
// room for 6 bytes per input byte plus 2.
static char *put_json_string(char *out, const char *s) {
  *out++ = '"';
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      *out++ = '\\';
      *out++ = (char)c;
    } else if (c < 0x20) {
      static const char hex[] = "0123456789abcdef";
      out = stpcpy(out, "\\u00");
      *out++ = hex[c >> 4];
      *out++ = hex[c & 15];
    } else {
      *out++ = (char)c;
    }
  }
  *out++ = '"';
  return out;
}

// ---- the policy ------------------------------------------------------------------------------

static bool is_one_of(const char *word, const char *const *list, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(word, list[i]) == 0) return true;
  return false;
}

// The command line: `command` (or `cmd`) as a string, or a list of strings joined by spaces.
// Returns malloc'd text, or NULL when the arguments hold no command.
static char *shell_command(const hook_string_t *arguments) {
  const char *text = (const char *)arguments->ptr, *start, *stop;
  if (!find_member(text, arguments->len, "command", &start, &stop) &&
      !find_member(text, arguments->len, "cmd", &start, &stop))
    return NULL;
  char *value = NULL;
  if (*start == '"') {
    read_string(start, stop, &value);
    return value;
  }
  if (*start != '[') return NULL;
  // A list: join its strings with spaces.
  char *joined = malloc((size_t)(stop - start) + 1), *w = joined;
  const char *p = skip_ws(start + 1, stop);
  while (p < stop && *p != ']') {
    if (*p == '"') {
      char *item = NULL;
      p = read_string(p, stop, &item);
      if (!p) break;
      if (w != joined) *w++ = ' ';
      w = stpcpy(w, item);
      free(item);
    } else if (!(p = skip_value(p, stop))) {
      break;
    }
    p = skip_ws(p, stop);
    if (p < stop && *p == ',') p = skip_ws(p + 1, stop);
  }
  *w = '\0';
  return joined;
}

// Splits `command` in place into words separated by spaces, tabs and line breaks; `words` has
// room for strlen(command) / 2 + 1 of them.
static size_t split_words(char *command, char **words) {
  size_t n = 0;
  for (char *word = strtok(command, " \t\n\r"); word; word = strtok(NULL, " \t\n\r")) words[n++] = word;
  return n;
}

static const char *destructive(char **words, size_t n) {
  bool rm = false, recursive = false, root_or_home = false;
  for (size_t i = 0; i < n; i++) {
    const char *w = words[i];
    if (strncmp(w, "mkfs", 4) == 0) return "destructive command: formats a filesystem";
    rm |= strcmp(w, "rm") == 0;
    recursive |= strcmp(w, "--recursive") == 0 || (w[0] == '-' && w[1] != '-' && strpbrk(w, "rR"));
    root_or_home |= is_one_of(w, ROOT_OR_HOME, COUNT(ROOT_OR_HOME));
  }
  return rm && recursive && root_or_home ? "destructive command: recursive delete of a root or home directory" : NULL;
}

static bool is_force(const char *w) { return strcmp(w, "--force") == 0 || strcmp(w, "-f") == 0; }

// `git push --force` (or `-f`) with `--force-with-lease` instead, words joined by spaces
// (malloc'd), or NULL.
static char *lease_instead_of_force(char **words, size_t n) {
  bool force = false;
  size_t size = 1;
  for (size_t i = 0; i < n; i++) {
    force |= is_force(words[i]);
    size += strlen(words[i]) + sizeof("--force-with-lease");
  }
  if (n < 2 || strcmp(words[0], "git") != 0 || strcmp(words[1], "push") != 0 || !force) return NULL;
  char *safer = malloc(size), *w = safer;
  for (size_t i = 0; i < n; i++) {
    if (i) *w++ = ' ';
    w = stpcpy(w, is_force(words[i]) ? "--force-with-lease" : words[i]);
  }
  return safer;
}

static void pass(decision_t *ret, hookhost_hooks_types_effect_t *effect) {
  ret->verdict.tag = HOOKHOST_HOOKS_TYPES_VERDICT_PASS;
  ret->effects.ptr = NULL;
  ret->effects.len = 0;
  if (effect) {
    ret->effects.ptr = malloc(sizeof *effect);
    ret->effects.ptr[0] = *effect;
    ret->effects.len = 1;
  }
}

static void on_tool_call(const hookhost_hooks_types_tool_call_t *call, decision_t *ret) {
  pass(ret, NULL);
  char name[32];
  if (call->name.len >= sizeof name) return;
  memcpy(name, call->name.ptr, call->name.len);
  name[call->name.len] = '\0';
  if (!is_one_of(name, SHELL_TOOLS, COUNT(SHELL_TOOLS))) return;

  char *command = shell_command(&call->arguments);
  if (!command) return;
  char **words = malloc((strlen(command) / 2 + 1) * sizeof *words);
  size_t n = split_words(command, words);
  const char *reason = destructive(words, n);
  if (reason) {
    // Count this session's blocks in the hook's state (contract 0.3.0). A store the host cannot
    // reach leaves the count out: it never lets the command through.
    hook_string_t key;
    hook_string_dup(&key, "blocks");
    int64_t count = 0;
    hookhost_hooks_state_state_error_t state_err;
    char counted[256];
    if (hookhost_hooks_state_incr(&key, 1, NULL, &count, &state_err)) {
      snprintf(counted, sizeof counted, "%s (block %lld in this session)", reason, (long long)count);
      reason = counted;
    } else {
      hookhost_hooks_state_state_error_free(&state_err);
    }
    hook_string_free(&key);
    ret->verdict.tag = HOOKHOST_HOOKS_TYPES_VERDICT_BLOCK;
    ret->verdict.val.block.reason.is_some = true;
    hook_string_dup(&ret->verdict.val.block.reason.val, reason);
    ret->verdict.val.block.user_message.is_some = true;
    hook_string_dup(&ret->verdict.val.block.user_message.val, USER_MESSAGE);
    free(words);
    free(command);
    return;
  }
  // The rewrite applies to a `command` string, the common shape: splice the new string over
  // the old one, so every other argument stays as it was.
  const char *args = (const char *)call->arguments.ptr, *start, *stop;
  char *safer = NULL;
  if (find_member(args, call->arguments.len, "command", &start, &stop) && *start == '"' &&
      (safer = lease_instead_of_force(words, n))) {
    size_t before = (size_t)(start - args), after = call->arguments.len - (size_t)(stop - args);
    char *json = malloc(before + strlen(safer) * 6 + 2 + after), *w = json;
    memcpy(w, args, before);
    w = put_json_string(w + before, safer);
    memcpy(w, stop, after);
    hookhost_hooks_types_effect_t effect = {.tag = HOOKHOST_HOOKS_TYPES_EFFECT_REWRITE_INPUT};
    effect.val.rewrite_input.ptr = (uint8_t *)json;
    effect.val.rewrite_input.len = (size_t)(w - json) + after;
    pass(ret, &effect);
  }
  free(safer);
  free(words);
  free(command);
}

// ---- the exports -----------------------------------------------------------------------------

bool exports_hookhost_hooks_handler_validate_settings(hook_string_t *settings, hook_string_t *err) {
  const char *p = skip_ws((const char *)settings->ptr, (const char *)settings->ptr + settings->len);
  bool ok = p == (const char *)settings->ptr + settings->len || *p == '{';
  hook_string_free(settings);
  if (!ok) hook_string_dup(err, "settings must be a JSON object");
  return ok;
}

bool exports_hookhost_hooks_handler_handle(event_t *event, hookhost_hooks_types_context_t *ctx, decision_t *ret,
                                           hook_string_t *err) {
  (void)err;
  switch (event->tag) {
    case HOOKHOST_HOOKS_TYPES_EVENT_USER_PROMPT_SUBMIT: {
      hookhost_hooks_types_effect_t effect = {.tag = HOOKHOST_HOOKS_TYPES_EFFECT_ADD_CONTEXT};
      hook_string_dup(&effect.val.add_context, PROMPT_CONTEXT);
      pass(ret, &effect);
      break;
    }
    case HOOKHOST_HOOKS_TYPES_EVENT_PRE_TOOL_USE:
      on_tool_call(&event->val.pre_tool_use, ret);
      break;
    case HOOKHOST_HOOKS_TYPES_EVENT_PERMISSION_REQUEST:
      on_tool_call(&event->val.permission_request, ret);
      break;
    default:
      pass(ret, NULL);
  }
  hookhost_hooks_types_event_free(event);
  hookhost_hooks_types_context_free(ctx);
  return true;
}

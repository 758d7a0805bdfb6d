#!/usr/bin/env python3
"""A scripted model server on loopback for the real-client suite.

It speaks the four model APIs the pinned agent CLIs call, streaming and not:

- Anthropic Messages (`POST /v1/messages`) — Claude Code;
- OpenAI Responses (`POST /v1/responses`) — Codex;
- Gemini (`POST /v1beta/models/<model>:streamGenerateContent` and `:generateContent`) — Gemini CLI;
- OpenAI Chat Completions (`POST /chat/completions`, `/v1/chat/completions`) — Copilot CLI (BYOK).

The script is in the prompt: a user message holding `TOOL<<name {json arguments}>>` makes the
model call that tool (the first such directive naming a tool the client offers: one prompt can
script each client's own edit tool; a freeform tool such as Codex's `apply_patch` gets the
`input` argument as its text), and `RUN<<command>>` makes it call the client's shell tool with
that command, once (`{{KEY}}` placeholders in either are filled in first: the model "writes" a
secret or a path the prompt never held); when the conversation already holds a tool result,
or has no `RUN<<…>>`, the model answers with text (`DONE`). Every request body is appended, one
JSON line each, to the log file named by `--log`: the suite checks what reached "the model"
there, never hookhost's answer.

Written from each API's public reference (Anthropic's "Streaming Messages", OpenAI's Responses
streaming events and Chat Completions chunks, Gemini's `GenerateContentResponse`), as small as the
clients need. Standard library only.
"""

import argparse
import gzip
import json
import os
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

RUN = re.compile(r"RUN<<(.*?)>>", re.S)
TOOL = re.compile(r"TOOL<<(\S+) (\{.*?\})>>", re.S)

# The shell tool of each client, by the name it declares to the model.
SHELL_TOOLS = ("Bash", "shell", "exec_command", "run_shell_command", "bash", "shell_command")


def shell_args(name, schema, command):
    """Arguments for a call of the shell tool `name`, shaped by its declared JSON schema."""
    props = (schema or {}).get("properties", {}) or {}
    args = {}
    for key in ("command", "cmd"):
        if key in props:
            kind = props[key].get("type")
            args[key] = ["bash", "-lc", command] if kind == "array" else command
            break
    else:
        args["command"] = command
    for key in (schema or {}).get("required", []) or []:
        if key in args:
            continue
        if key == "description":
            args[key] = "run the scripted command"
        elif props.get(key, {}).get("type") == "boolean":
            args[key] = False
        elif props.get(key, {}).get("type") in ("integer", "number"):
            args[key] = 30000
        else:
            args[key] = "run the scripted command"
    return args


class Script:
    """What the model does next, from a request's tools and conversation."""

    def __init__(self, tools, texts, has_tool_result, freeform=()):
        self.tools = tools  # name -> schema
        self.texts = texts
        self.has_tool_result = has_tool_result
        self.freeform = set(freeform)  # tools whose call is text, not JSON (Responses "custom" tools)
        self.fill = {}

    def filled(self, text, quote=False):
        for key, value in self.fill.items():
            text = text.replace(key, json.dumps(value)[1:-1] if quote else value)
        return text

    def next(self):
        """("tool", name, args) or ("text", text)."""
        if not self.has_tool_result:
            tool = next((t for t in SHELL_TOOLS if t in self.tools), None)
            for text in self.texts:
                for m in TOOL.finditer(text):
                    if m.group(1) in self.tools:
                        try:
                            return ("tool", m.group(1), json.loads(self.filled(m.group(2), quote=True)))
                        except ValueError:
                            continue  # a directive the client's text mangled: the next one
                m = RUN.search(text)
                if m and tool:
                    command = self.filled(m.group(1))
                    return ("tool", tool, shell_args(tool, self.tools[tool], command))
        return ("text", "DONE")


def texts_of(value, out):
    if isinstance(value, str):
        # OpenCode (1.18, OpenAI-compatible provider) sends a user message quoted, its quotes
        # escaped (`"Say \\"hi\\""`, backslashes left as they were): read as the text it holds.
        if len(value) >= 2 and value[0] == value[-1] == '"':
            value = value[1:-1].replace('\\"', '"')
        out.append(value)
    elif isinstance(value, list):
        for v in value:
            texts_of(v, out)
    elif isinstance(value, dict):
        for v in value.values():
            texts_of(v, out)
    return out


def user_texts(messages, role_key="role", user=("user",), skip_types=()):
    out = []
    for m in messages or []:
        if not isinstance(m, dict) or m.get(role_key) not in user:
            continue
        content = m.get("content", m.get("parts"))
        if isinstance(content, list):
            content = [c for c in content if not (isinstance(c, dict) and c.get("type") in skip_types)]
        texts_of(content, out)
    return out


def anthropic_script(body):
    tools = {t.get("name"): t.get("input_schema") for t in body.get("tools", []) or [] if isinstance(t, dict)}
    msgs = body.get("messages", [])
    has_result = any(
        isinstance(c, dict) and c.get("type") == "tool_result"
        for m in msgs if isinstance(m.get("content"), list) for c in m["content"]
    )
    return Script(tools, user_texts(msgs, skip_types=("tool_result",)), has_result)


# A tool inside a Responses `namespace` tool (Codex groups an MCP server's tools as namespace
# `mcp__<server>`), by the name the prompt scripts (`mcp__fs__write_file`): (namespace, name).
NAMESPACED = {}


def responses_script(body):
    tools, freeform = {}, []
    for t in body.get("tools", []) or []:
        if isinstance(t, dict) and t.get("type") == "namespace":
            for inner in t.get("tools", []) or []:
                full = f"{t['name']}__{inner.get('name')}"
                tools[full] = inner.get("parameters")
                NAMESPACED[full] = (t["name"], inner.get("name"))
        elif isinstance(t, dict) and t.get("name"):
            tools[t["name"]] = t.get("parameters")
            if t.get("type") == "custom":
                freeform.append(t["name"])
    items = body.get("input", []) or []
    has_result = any(isinstance(i, dict) and i.get("type", "").endswith("_call_output") for i in items)
    texts = []
    for i in items:
        if isinstance(i, dict) and i.get("type", "message") == "message" and i.get("role") == "user":
            texts_of(i.get("content"), texts)
    return Script(tools, texts, has_result, freeform)


def gemini_script(body):
    tools = {}
    for t in body.get("tools", []) or []:
        for d in (t or {}).get("functionDeclarations", []) or []:
            tools[d.get("name")] = d.get("parametersJsonSchema") or d.get("parameters")
    contents = body.get("contents", []) or []
    has_result = any(
        isinstance(p, dict) and "functionResponse" in p for c in contents for p in c.get("parts", []) or []
    )
    texts = []
    for c in contents:
        if c.get("role", "user") == "user":
            for p in c.get("parts", []) or []:
                if isinstance(p, dict) and "text" in p:
                    texts.append(p["text"])
    return Script(tools, texts, has_result)


def chat_script(body):
    tools = {}
    for t in body.get("tools", []) or []:
        f = (t or {}).get("function") or {}
        if f.get("name"):
            tools[f["name"]] = f.get("parameters")
    msgs = body.get("messages", []) or []
    has_result = any(isinstance(m, dict) and m.get("role") == "tool" for m in msgs)
    return Script(tools, user_texts(msgs), has_result)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-model/1"

    def log_message(self, *args):  # quiet: the log file is the record
        pass

    def script(self, reader, body):
        script = reader(body)
        script.fill = self.server.fill
        step = script.next()
        if step[0] == "tool" and step[1] in script.freeform:
            return ("freeform", step[1], step[2].get("input", ""))
        return step

    def record(self, body):
        with self.server.lock:
            self.server.seq += 1
            seq = self.server.seq
            with open(self.server.log_path, "a", encoding="utf-8") as f:
                f.write(json.dumps({"seq": seq, "method": self.command, "path": self.path, "body": body}) + "\n")
        return seq

    def read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        if self.headers.get("Content-Encoding") == "gzip":
            raw = gzip.decompress(raw)
        try:
            return json.loads(raw or b"{}")
        except ValueError:
            return {"_raw": raw.decode("utf-8", "replace")}

    def send_json(self, obj, status=200):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def start_sse(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def sse(self, data, event=None):
        chunk = ""
        if event:
            chunk += f"event: {event}\n"
        chunk += "data: " + (data if isinstance(data, str) else json.dumps(data)) + "\n\n"
        self.wfile.write(chunk.encode())
        self.wfile.flush()

    def do_GET(self):
        self.record(None)
        path = self.path.split("?")[0]
        if path.endswith("/models"):
            model = {"id": "fake-model", "object": "model", "created": 0, "owned_by": "hookhost",
                     "name": "fake-model", "capabilities": {"supports": {"tool_calls": True, "streaming": True}}}
            return self.send_json({"object": "list", "data": [model], "models": [model]})
        self.send_json({})

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        body = self.read_body()
        seq = self.record(body)
        path = self.path.split("?")[0]
        if path.endswith("/messages/count_tokens"):
            return self.send_json({"input_tokens": 10})
        if path.endswith("/messages"):
            return self.anthropic(body, seq)
        if path.endswith("/responses"):
            return self.openai_responses(body, seq)
        if path.endswith("/chat/completions"):
            return self.chat(body, seq)
        if ":streamGenerateContent" in path:
            return self.gemini(body, seq, stream=True)
        if ":generateContent" in path:
            return self.gemini(body, seq, stream=False)
        if ":countTokens" in path:
            return self.send_json({"totalTokens": 10})
        self.send_json({})

    # Anthropic Messages.
    def anthropic(self, body, seq):
        step = self.script(anthropic_script, body)
        if step[0] == "tool":
            block = {"type": "tool_use", "id": f"toolu_{seq:04d}", "name": step[1], "input": step[2]}
            stop = "tool_use"
        else:
            block = {"type": "text", "text": step[1]}
            stop = "end_turn"
        usage = {"input_tokens": 10, "output_tokens": 5}
        message = {"id": f"msg_{seq:04d}", "type": "message", "role": "assistant", "model": body.get("model", "fake"),
                   "content": [block], "stop_reason": stop, "stop_sequence": None, "usage": usage}
        if not body.get("stream"):
            return self.send_json(message)
        self.start_sse()
        self.sse({"type": "message_start", "message": dict(message, content=[], stop_reason=None)}, "message_start")
        if block["type"] == "tool_use":
            self.sse({"type": "content_block_start", "index": 0, "content_block": dict(block, input={})}, "content_block_start")
            self.sse({"type": "content_block_delta", "index": 0,
                      "delta": {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}}, "content_block_delta")
        else:
            self.sse({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}, "content_block_start")
            self.sse({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": block["text"]}}, "content_block_delta")
        self.sse({"type": "content_block_stop", "index": 0}, "content_block_stop")
        self.sse({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                  "usage": {"output_tokens": 5}}, "message_delta")
        self.sse({"type": "message_stop"}, "message_stop")

    # OpenAI Responses.
    def openai_responses(self, body, seq):
        step = self.script(responses_script, body)
        rid = f"resp_{seq:04d}"
        if step[0] == "tool":
            item = {"type": "function_call", "id": f"fc_{seq:04d}", "call_id": f"call_{seq:04d}", "name": step[1],
                    "arguments": json.dumps(step[2]), "status": "completed"}
            if step[1] in NAMESPACED:
                item["namespace"], item["name"] = NAMESPACED[step[1]]
        elif step[0] == "freeform":
            item = {"type": "custom_tool_call", "id": f"ctc_{seq:04d}", "call_id": f"call_{seq:04d}", "name": step[1],
                    "input": step[2], "status": "completed"}
        else:
            item = {"type": "message", "id": f"msg_{seq:04d}", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": step[1], "annotations": []}]}
        usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
                 "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}
        response = {"id": rid, "object": "response", "status": "completed", "model": body.get("model", "fake"),
                    "output": [item], "usage": usage}
        if not body.get("stream"):
            return self.send_json(response)
        self.start_sse()
        self.sse({"type": "response.created", "response": dict(response, status="in_progress", output=[])}, "response.created")
        self.sse({"type": "response.output_item.added", "output_index": 0, "item": item}, "response.output_item.added")
        self.sse({"type": "response.output_item.done", "output_index": 0, "item": item}, "response.output_item.done")
        self.sse({"type": "response.completed", "response": response}, "response.completed")

    # Gemini.
    def gemini(self, body, seq, stream):
        step = self.script(gemini_script, body)
        if step[0] == "tool":
            part = {"functionCall": {"name": step[1], "args": step[2]}}
        else:
            # Gemini CLI's own side calls (the model router, the next-speaker check) ask for JSON.
            cfg = body.get("generationConfig") or body.get("config") or {}
            if cfg.get("responseMimeType") == "application/json" or cfg.get("responseJsonSchema") or cfg.get("responseSchema"):
                part = {"text": json.dumps({"reasoning": "scripted", "next_speaker": "user",
                                            "model_choice": "flash", "complexity_reasoning": "scripted",
                                            "complexity_score": 1})}
            else:
                part = {"text": step[1]}
        response = {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
                    "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
                    "modelVersion": "fake-model", "responseId": f"r{seq}"}
        if not stream:
            return self.send_json(response)
        self.start_sse()
        self.sse(response)

    # OpenAI Chat Completions.
    def chat(self, body, seq):
        step = self.script(chat_script, body)
        cid = f"chatcmpl-{seq:04d}"
        model = body.get("model", "fake-model")
        if step[0] == "tool":
            call = {"index": 0, "id": f"call_{seq:04d}", "type": "function",
                    "function": {"name": step[1], "arguments": json.dumps(step[2])}}
            message = {"role": "assistant", "content": None, "tool_calls": [{k: v for k, v in call.items() if k != "index"}]}
            finish = "tool_calls"
        else:
            message = {"role": "assistant", "content": step[1]}
            finish = "stop"
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        if not body.get("stream"):
            return self.send_json({"id": cid, "object": "chat.completion", "created": 0, "model": model,
                                   "choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": usage})
        self.start_sse()
        base = {"id": cid, "object": "chat.completion.chunk", "created": 0, "model": model}
        delta = {"role": "assistant"}
        if step[0] == "tool":
            delta["tool_calls"] = [call]
        else:
            delta["content"] = step[1]
        self.sse(dict(base, choices=[{"index": 0, "delta": delta, "finish_reason": None}]))
        self.sse(dict(base, choices=[{"index": 0, "delta": {}, "finish_reason": finish}], usage=usage))
        self.sse("[DONE]")


def start(log_path, fill=None):
    """Serve on an ephemeral loopback port, in a daemon thread; returns the server (`.port`,
    `.shutdown()`)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.lock = threading.Lock()
    server.seq = 0
    server.log_path = log_path
    server.fill = dict(fill or {})
    server.port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--log", required=True, help="file the request bodies are appended to")
    ap.add_argument("--port-file", required=True, help="file the chosen port is written to")
    ap.add_argument("--fill", action="append", default=[], metavar="KEY=VALUE",
                    help="replace KEY by VALUE in scripted commands (e.g. {{SECRET}}=...)")
    args = ap.parse_args()
    server = start(args.log, dict(f.split("=", 1) for f in args.fill))
    with open(args.port_file + ".tmp", "w") as f:
        f.write(str(server.port))
    os.replace(args.port_file + ".tmp", args.port_file)
    threading.Event().wait()


if __name__ == "__main__":
    sys.exit(main())

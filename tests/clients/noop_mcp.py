#!/usr/bin/env python3
"""A no-op MCP server on stdio: one tool, `hook`, that answers `{}` to every call at once.

The baseline of `suite.py --latency`: what a Claude Code MCP tool hook costs when the server
does nothing, so that what hookhost's `hookhost mcp` adds can be told apart from what the
client spends on any MCP tool hook (MCP's stdio transport: one JSON-RPC message a line).
"""

import json
import sys


def main():
    for line in sys.stdin:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if "id" not in msg or "method" not in msg:
            continue
        method = msg["method"]
        if method == "initialize":
            result = {"protocolVersion": msg.get("params", {}).get("protocolVersion", "2025-11-25"),
                      "capabilities": {"tools": {}}, "serverInfo": {"name": "noop", "version": "1"}}
        elif method == "tools/list":
            result = {"tools": [{"name": "hook", "inputSchema": {"type": "object"},
                                 "_meta": {"ui": {"visibility": ["app"]}}}]}
        elif method == "tools/call":
            result = {"content": [{"type": "text", "text": "{}"}], "isError": False}
        else:
            result = {}
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()

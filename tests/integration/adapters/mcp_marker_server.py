"""A tiny MCP server (stdio, JSON-RPC lines) planted in the user's MCP configuration by the adapter tests.

If a CLI starts it, it leaves a file behind and offers a tool whose name and description hold the
marker, so that a leak shows up both on disk and in the request body sent to the mock model."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main() -> int:
    started, marker = Path(sys.argv[1]), sys.argv[2]
    started.write_text("started\n")
    for line in sys.stdin:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if "id" not in msg:
            continue
        method = msg.get("method")
        if method == "initialize":
            result: object = {
                "protocolVersion": msg.get("params", {}).get("protocolVersion", "2024-11-05"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "marker", "version": "1.0.0"},
            }
        elif method == "tools/list":
            tool = {"name": "marker_tool", "description": marker, "inputSchema": {"type": "object", "properties": {}}}
            result = {"tools": [tool]}
        else:
            result = {}
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

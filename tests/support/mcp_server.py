"""A tiny stdio MCP server for the agent tests (standard library only): JSON-RPC 2.0, one message a
line, `initialize`, `tools/list` and `tools/call` of one tool, `lookup {"key": ...}`, which answers
`MCP-ANSWER:<key>:<FACT>` (FACT from its environment, so a test sees the server got its `env`) and
appends the key to the file named by its first argument, if any (so a test sees the call happened in
the server, not only in the transcript)."""

from __future__ import annotations

import json
import os
import sys

TOOL = {
    "name": "lookup",
    "description": "Look a key up in the team's fact store. Use it for any question about a key.",
    "inputSchema": {"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]},
}


def answer(request: dict[str, object]) -> dict[str, object] | None:
    method = request.get("method")
    if "id" not in request:  # a notification (notifications/initialized, ...): no answer
        return None
    params = request.get("params") if isinstance(request.get("params"), dict) else {}
    assert isinstance(params, dict)
    if method == "initialize":
        result: dict[str, object] = {
            "protocolVersion": params.get("protocolVersion") or "2025-06-18",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "skill-be-test-facts", "version": "1.0.0"},
        }
    elif method == "tools/list":
        result = {"tools": [TOOL]}
    elif method == "tools/call" and params.get("name") == TOOL["name"]:
        args = params.get("arguments") if isinstance(params.get("arguments"), dict) else {}
        key = str(args.get("key") if isinstance(args, dict) else "")
        if len(sys.argv) > 1:
            with open(sys.argv[1], "a", encoding="utf-8") as f:
                f.write(key + "\n")
        text = f"MCP-ANSWER:{key}:{os.environ.get('FACT', 'no-fact')}"
        result = {"content": [{"type": "text", "text": text}], "isError": False}
    elif method == "ping":
        result = {}
    else:
        return {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": f"no method {method}"}}
    return {"jsonrpc": "2.0", "id": request["id"], "result": result}


def main() -> None:
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            request = json.loads(line)
        except ValueError:
            continue
        reply = answer(request) if isinstance(request, dict) else None
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()

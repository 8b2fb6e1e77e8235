"""A scripted model server with the providers' batch APIs, for batch mode's tests, on 127.0.0.1 in a
thread of the test process. It answers the same prompt the same way one by one and in a batch:

- Anthropic: `POST /v1/messages`; Message Batches `POST /v1/messages/batches` ({"requests":
  [{"custom_id", "params"}]}), `GET /v1/messages/batches/{id}` (`processing_status`, `request_counts`,
  `results_url`, `expires_at`), `GET /v1/messages/batches/{id}/results` (JSON lines: `custom_id`,
  `result.type` succeeded | errored | expired, `result.message` or `result.error`).
- OpenAI: `POST /v1/chat/completions`; the Batch API `POST /v1/files` (multipart, purpose=batch, a
  JSON-lines file of {"custom_id", "method", "url", "body"}), `POST /v1/batches` ({"input_file_id",
  "endpoint", "completion_window"}), `GET /v1/batches/{id}` (`status`, `request_counts`,
  `output_file_id`, `error_file_id`), `GET /v1/files/{id}/content`.

A batch is `in_progress` for `polls` polls, then ended (while `hold` is set it never ends). `fail` maps
a word of a prompt to how the first request with it (each one with `every`) ends in the first
`times` batches it is in: "errored" or "expired".
The answer: a grading ("VERDICTS:" in the prompt) says YES when the answer it grades is ANSWER, else
NO; a generation answers ANSWER with the skill's docs in the prompt, else PLAIN. `submitted` counts
each custom_id submitted, `one_by_one` each call made alone, `bodies` keeps every body sent.
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.loopback import Loopback

ANSWER = "Use allocate."
PLAIN = "I would divide it."
TOKENS_IN, TOKENS_OUT = 20, 5


def prompt_of(body: dict[str, Any]) -> str:
    content = body["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    return "".join(str(b.get("text", "")) for b in content if isinstance(b, dict))


def answer(prompt: str) -> str:
    if "VERDICTS:" in prompt:
        return "VERDICTS:\n1: " + ("YES" if ANSWER in prompt else "NO")
    return ANSWER if "LIBRARY DOCS" in prompt else PLAIN


def anthropic_message(body: dict[str, Any]) -> dict[str, Any]:
    usage = {"input_tokens": TOKENS_IN, "output_tokens": TOKENS_OUT}
    content = [{"type": "text", "text": answer(prompt_of(body))}]
    return {"type": "message", "role": "assistant", "model": body["model"], "content": content,
            "stop_reason": "end_turn", "usage": usage}  # fmt: skip


def openai_completion(body: dict[str, Any]) -> dict[str, Any]:
    usage = {"prompt_tokens": TOKENS_IN, "completion_tokens": TOKENS_OUT, "total_tokens": TOKENS_IN + TOKENS_OUT}
    message = {"role": "assistant", "content": answer(prompt_of(body))}
    return {"object": "chat.completion", "model": body["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}], "usage": usage}  # fmt: skip


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Any  # carries .owner

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _reply(self, status: int, data: object, text: str | None = None) -> None:
        raw = (text if text is not None else json.dumps(data)).encode()
        self.send_response(status)
        self.send_header("content-type", "application/jsonl" if text is not None else "application/json")
        self.send_header("content-length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def do_GET(self) -> None:
        self.server.owner.seen.append(("GET", self.path, dict(self.headers)))
        status, data, text = self.server.owner.get(self.path.rstrip("/"))
        self._reply(status, data, text)

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        self.server.owner.seen.append(("POST", self.path, dict(self.headers)))
        try:
            status, data = self.server.owner.post(self.path.rstrip("/"), raw, self.headers.get("content-type", ""))
        except AssertionError as e:  # a request the real API would refuse
            status, data = 400, {"error": {"type": "invalid_request_error", "message": f"refused: {e}"}}
        self._reply(status, data)


class BatchServer(Loopback):
    def __init__(self, polls: int = 1) -> None:
        self.lock = threading.Lock()
        self.polls = polls
        self.hold = threading.Event()  # set: no batch ends
        self.fail: dict[str, str] = {}
        self.times = 1
        self.every = False  # fail every request with the word, not only the first
        self.targets: dict[str, str] = {}  # word -> the request it fails
        self.failed: Counter[tuple[str, str]] = Counter()  # (word, request) -> batches it failed in
        self.submitted: Counter[str] = Counter()  # custom_id -> times submitted
        self.batches: dict[str, dict[str, Any]] = {}  # id -> {"wire", "items", "polls"}
        self.files: dict[str, str] = {}
        self.one_by_one: list[dict[str, Any]] = []
        self.seen: list[tuple[str, str, dict[str, str]]] = []  # (method, path, headers) of every request
        self.bodies: list[dict[str, Any]] = []  # every body a model was sent, alone or in a batch
        self.serve(Handler)

    # -- routes -----------------------------------------------------------------------------------
    def post(self, path: str, raw: bytes, ctype: str) -> tuple[int, object]:
        with self.lock:
            if path == "/v1/messages":
                body = json.loads(raw)
                self.one_by_one.append(body)
                self.bodies.append(body)
                return 200, anthropic_message(body)
            if path == "/v1/chat/completions":
                body = json.loads(raw)
                self.one_by_one.append(body)
                self.bodies.append(body)
                return 200, openai_completion(body)
            if path == "/v1/messages/batches":
                requests = json.loads(raw)["requests"]
                return 200, self._anthropic_batch(
                    self._create("anthropic", [(r["custom_id"], r["params"]) for r in requests])
                )
            if path == "/v1/files":
                return 200, self._upload(raw, ctype)
            if path == "/v1/batches":
                req = json.loads(raw)
                assert req["endpoint"] == "/v1/chat/completions" and req["completion_window"] == "24h", req
                lines = [json.loads(x) for x in self.files[req["input_file_id"]].splitlines() if x.strip()]
                assert all(x["method"] == "POST" and x["url"] == "/v1/chat/completions" for x in lines), lines
                return 200, self._openai_batch(self._create("openai", [(x["custom_id"], x["body"]) for x in lines]))
        return 404, {"error": {"message": f"no such route {path}"}}

    def get(self, path: str) -> tuple[int, object, str | None]:
        with self.lock:
            parts = path.split("/")
            if path.startswith("/v1/messages/batches/") and path.endswith("/results"):
                return 200, None, self._results(parts[4])
            if path.startswith("/v1/messages/batches/"):
                return 200, self._anthropic_batch(self._poll(parts[4])), None
            if path.startswith("/v1/batches/"):
                return 200, self._openai_batch(self._poll(parts[3])), None
            if path.startswith("/v1/files/") and path.endswith("/content"):
                return 200, None, self.files[parts[3]]
        return 404, {"error": {"message": f"no such route {path}"}}, None

    # -- batches ----------------------------------------------------------------------------------
    def _create(self, wire: str, items: list[tuple[str, dict[str, Any]]]) -> str:
        batch_id = f"{'msgbatch' if wire == 'anthropic' else 'batch'}_{len(self.batches) + 1:04d}"
        outcomes = {}
        for custom_id, body in items:
            self.submitted[custom_id] += 1
            self.bodies.append(body)
            outcomes[custom_id] = self._outcome(prompt_of(body), custom_id)
        self.batches[batch_id] = {"wire": wire, "items": items, "polls": 0, "outcomes": outcomes}
        return batch_id

    def _outcome(self, prompt: str, custom_id: str) -> str:
        """An item fails in its first `times` batches when its prompt has a word of `fail`: only the
        first request with that word (a request's id less its attempt), or each one with `every`."""
        request = custom_id.rsplit("-", 1)[0]
        for word, how in self.fail.items():
            mine = word in prompt and (self.every or self.targets.setdefault(word, request) == request)
            if mine and self.failed[(word, request)] < self.times:
                self.failed[(word, request)] += 1
                return how
        return "succeeded"

    def _poll(self, batch_id: str) -> dict[str, Any]:
        batch = self.batches[batch_id]
        if not self.hold.is_set():
            batch["polls"] += 1
        return batch

    def ended(self, batch: dict[str, Any]) -> bool:
        return batch["polls"] > self.polls

    def _counts(self, batch: dict[str, Any]) -> Counter[str]:
        return Counter(batch["outcomes"].values()) if self.ended(batch) else Counter()

    def _anthropic_batch(self, batch_id: str | dict[str, Any]) -> dict[str, Any]:
        bid = batch_id if isinstance(batch_id, str) else next(k for k, v in self.batches.items() if v is batch_id)
        batch = self.batches[bid]
        c, n = self._counts(batch), len(batch["items"])
        counts = {"processing": 0 if self.ended(batch) else n, "succeeded": c["succeeded"], "errored": c["errored"],
                  "canceled": 0, "expired": c["expired"]}  # fmt: skip
        url = f"{self.base_url}/v1/messages/batches/{bid}/results" if self.ended(batch) else None
        return {"id": bid, "type": "message_batch", "processing_status": "ended" if self.ended(batch) else "in_progress",
                "request_counts": counts, "results_url": url, "expires_at": "2026-12-09T00:00:00Z"}  # fmt: skip

    def _openai_batch(self, batch_id: str | dict[str, Any]) -> dict[str, Any]:
        bid = batch_id if isinstance(batch_id, str) else next(k for k, v in self.batches.items() if v is batch_id)
        batch = self.batches[bid]
        c, n = self._counts(batch), len(batch["items"])
        doc: dict[str, Any] = {"id": bid, "object": "batch", "endpoint": "/v1/chat/completions",
                               "status": "completed" if self.ended(batch) else "in_progress", "expires_at": 1796774400,
                               "request_counts": {"total": n, "completed": c["succeeded"],
                                                  "failed": c["errored"] + c["expired"]}}  # fmt: skip
        if self.ended(batch):
            out, err = self._openai_files(bid, batch)
            doc["output_file_id"], doc["error_file_id"] = out, err
        return doc

    def _openai_files(self, bid: str, batch: dict[str, Any]) -> tuple[str | None, str | None]:
        ok, bad = [], []
        for custom_id, body in batch["items"]:
            how = batch["outcomes"][custom_id]
            if how == "succeeded":
                ok.append({"id": "r", "custom_id": custom_id, "error": None,
                           "response": {"status_code": 200, "request_id": "q", "body": openai_completion(body)}})  # fmt: skip
            elif how == "expired":
                bad.append({"id": "r", "custom_id": custom_id, "response": None,
                            "error": {"code": "batch_expired", "message": "This request could not be executed before the completion window expired."}})  # fmt: skip
            else:
                bad.append({"id": "r", "custom_id": custom_id, "error": None,
                            "response": {"status_code": 500, "request_id": "q",
                                         "body": {"error": {"message": "scripted failure", "type": "server_error"}}}})  # fmt: skip
        names = []
        for kind, rows in (("out", ok), ("err", bad)):
            if rows:
                self.files[f"file-{bid}-{kind}"] = "".join(json.dumps(r) + "\n" for r in rows)
                names.append(f"file-{bid}-{kind}")
            else:
                names.append(None)
        return names[0], names[1]

    def _results(self, batch_id: str) -> str:
        batch = self.batches[batch_id]
        rows = []
        for custom_id, body in batch["items"]:
            how = batch["outcomes"][custom_id]
            if how == "succeeded":
                result: dict[str, Any] = {"type": "succeeded", "message": anthropic_message(body)}
            elif how == "errored":
                result = {"type": "errored", "error": {"type": "error", "error": {"type": "api_error", "message": "scripted failure"}}}  # fmt: skip
            else:
                result = {"type": how}
            rows.append({"custom_id": custom_id, "result": result})
        return "".join(json.dumps(r) + "\n" for r in rows)

    def _upload(self, raw: bytes, ctype: str) -> dict[str, Any]:
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            b"content-type: " + ctype.encode() + b"\r\n\r\n" + raw
        )
        fields = {part.get_param("name", header="content-disposition"): part for part in message.iter_parts()}
        assert fields["purpose"].get_content().strip() == "batch", "purpose must be batch"
        payload = fields["file"].get_payload(decode=True)
        file_id = f"file-in-{len(self.files) + 1:04d}"
        self.files[file_id] = payload.decode()
        return {"id": file_id, "object": "file", "purpose": "batch"}

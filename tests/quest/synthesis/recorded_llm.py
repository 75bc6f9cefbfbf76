"""`RecordedLLMServer`: a real OpenAI-compatible HTTP server (POST /v1/chat/completions) that
answers with replies recorded for these tests, picked by what each request asks: the proposer's
turns by how many it has taken, the refine and verifier prompts by their wording. It stands in
for a capable model, which cannot run here; the client, the agent loop, the tools, the corpus
and the funnel it feeds are all real."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = str | Callable[[list[dict[str, str]]], str]


class RecordedLLMServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(
        self,
        *,
        proposer: Sequence[Reply],
        reviews: Sequence[str] = (),
        verdict: str = "YES\nThe solution meets every constraint.",
        rules: Sequence[tuple[str, Reply]] = (),
    ) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.proposer = list(proposer)
        self.reviews = list(reviews)
        self.verdict = verdict
        self.rules = list(rules)  # (words the last message holds, reply), first match wins
        self.requests: list[list[dict[str, str]]] = []
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def reply(self, messages: list[dict[str, str]]) -> str:
        self.requests.append(messages)
        last = messages[-1]["content"]
        if last.startswith("Review this proposed research task"):
            return self.reviews.pop(0) if self.reviews else '{"verdict": "valid", "reason": "ok"}'
        if last.startswith("You verify research tasks"):
            return self.verdict
        for words, reply in self.rules:
            if words in last:
                return reply(messages) if callable(reply) else reply
        turn = sum(m["role"] == "assistant" for m in messages)
        chosen = self.proposer[min(turn, len(self.proposer) - 1)]
        return chosen(messages) if callable(chosen) else chosen

    def __enter__(self) -> RecordedLLMServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()


class _Handler(BaseHTTPRequestHandler):
    server: RecordedLLMServer

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        text = self.server.reply(body["messages"])
        data = json.dumps({
            "id": "recorded", "object": "chat.completion", "model": body.get("model", "recorded"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 100, "completion_tokens": len(text) // 4},
        }).encode()  # fmt: skip
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: tests read `requests`."""

"""`RecordedLLMServer`: a real OpenAI-compatible HTTP server (POST /v1/chat/completions) that
answers with replies recorded for these tests, picked by what each request asks: the proposer's
turns by how many it has taken, the refine and verifier prompts by their wording. It stands in
for a capable model, which cannot run here; the client, the agent loop, the tools, the corpus
and the funnel it feeds are all real."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = str | Callable[[list[dict[str, str]]], str]

# A proposal a capable model could make for Kenya, and the turns that research it.
KENYA = "https://www.geonames.org/192950"
KENYA_QUESTION = (
    "Which city is the capital of Kenya, and what population does GeoNames record for "
    "Kenya? Cite your sources."
)
KENYA_PROPOSAL: dict[str, Any] = {
    "proposed_question": KENYA_QUESTION,
    "constraints": ["the capital of Kenya", "Kenya's population according to GeoNames"],
    "rubric_tree": {
        "node_name": "root",
        "description": KENYA_QUESTION,
        "critical": False,
        "aggregation_strategy": "parallel",
        "children": [
            {
                "node_name": "capital",
                "description": "Nairobi is named as the capital",
                "critical": True,
                "check": {"kind": "mentions", "value": "Nairobi", "context": ["capital"]},
            },
            {
                "node_name": "population",
                "description": "Kenya's GeoNames population is given",
                "critical": False,
                "check": {
                    "kind": "number",
                    "value": 51393010,
                    "tolerance_rel": 0.01,
                    "context": ["population"],
                },
            },
            {
                "node_name": "capital_sourced",
                "description": "A cited page states the capital",
                "critical": False,
                "check": {"kind": "source_supports", "value": "Nairobi", "context": ["capital"]},
            },
        ],
    },
    "solution": {
        "Nairobi": {"description": "The capital of Kenya is Nairobi.", "reference_urls": [KENYA]},
        "Kenya": {
            "description": "The population of Kenya is 51,393,010 according to GeoNames.",
            "reference_urls": [KENYA],
        },
    },
}
SEARCH_KENYA = '<tool_call>{"name": "search", "arguments": {"query": ["Kenya capital population"]}}'


def visit_first_geonames_result(messages: list[dict[str, str]]) -> str:
    """The recorded second turn: open the first GeoNames page the search showed."""
    url = re.search(r"https://www\.geonames\.org/\d+", messages[-1]["content"])
    assert url, "the search showed a GeoNames page"
    return (
        '<tool_call>{"name": "visit", "arguments": {"url": ["' + url[0] + '"], '
        '"goal": "capital and population of Kenya"}}'
    )


def answer(data: object) -> str:
    return f"<answer>{json.dumps(data)}</answer>"


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
        data = json.dumps(
            {
                "id": "recorded",
                "object": "chat.completion",
                "model": body.get("model", "recorded"),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": text},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 100, "completion_tokens": len(text) // 4},
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: tests read `requests`."""

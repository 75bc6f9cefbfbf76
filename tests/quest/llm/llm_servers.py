"""Servers for the LLM client tests.

`start_serve_llm` runs the real `python -m quest serve-llm` in a subprocess. `BrokenEndpoint` is
an in-test stand-in for a misbehaving OpenAI-compatible server (HTTP errors, slow or malformed
replies), which a real model server cannot be made to produce on demand. `build_tiny_model`
writes a tiny random-weights Llama with SmolLM2's tokenizer: it generates nonsense, fast.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
STARTUP_SECONDS = 180
# The served model name: serve-llm names a model after its directory.
TINY = "tiny-random-llama"


@dataclass
class ServedModel:
    process: subprocess.Popen[str]
    url: str
    output: list[str] = field(default_factory=list)

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


def start_serve_llm(model: str | Path, *extra: str) -> ServedModel:
    """Start `python -m quest serve-llm` on a free port; return once it prints its URL."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1"}
    command = [sys.executable, "-m", "quest", "serve-llm", "--model", str(model), "--port", "0"]
    process = subprocess.Popen(
        [*command, "--threads", "1", *extra],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    lines: queue.Queue[str | None] = queue.Queue()
    stdout = process.stdout

    def pump() -> None:
        for line in stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    output: list[str] = []
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=1)
        except queue.Empty:
            continue
        if line is None:
            break
        output.append(line)
        if line.startswith("serving "):
            return ServedModel(process, line.split(" on ")[-1].strip(), output)
    process.kill()
    process.wait()
    raise AssertionError("serve-llm did not start:\n" + "".join(output))


def closed_port_url() -> str:
    """The URL of a local port nothing listens on: connecting is refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


class BrokenEndpoint(ThreadingHTTPServer):
    """Answers every POST with `status` and `body` after `delay` seconds; records each request's
    headers. A stand-in for a failing or malformed OpenAI-compatible server."""

    daemon_threads = True

    def __init__(self, status: int = 500, body: Any = None, *, delay: float = 0.0) -> None:
        super().__init__(("127.0.0.1", 0), _BrokenHandler)
        self.status = status
        self.body = body
        self.delay = delay
        self.requests: list[dict[str, str]] = []
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def __enter__(self) -> BrokenEndpoint:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()


class _BrokenHandler(BaseHTTPRequestHandler):
    server: BrokenEndpoint

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        # Header names in lower case: HTTP does not tell them by case, nor do clients agree.
        self.server.requests.append({name.lower(): value for name, value in self.headers.items()})
        time.sleep(self.server.delay)
        body = self.server.body
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(self.server.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the tests read `requests` instead."""


def openai_error(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "server_error"}}


def prompt_tokens(model_dir: Path, messages: list[dict[str, str]]) -> int:
    """How many tokens the model's own tokenizer makes of `messages` as a chat prompt."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    prompt = tokenizer.apply_chat_template(messages, add_generation_prompt=True, return_dict=True)
    return len(prompt["input_ids"])


def build_tiny_model(folder: Path) -> Path:
    """A 2-layer, 32-wide Llama with random weights and SmolLM2's tokenizer and chat template."""
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    from quest.llm.local import smollm2_gguf

    gguf = smollm2_gguf()
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=512,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(0)
    LlamaForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


class StreamingEndpoint(ThreadingHTTPServer):
    """An OpenAI-compatible server that streams its reply slowly: `chunks` content chunks (None:
    without end) `interval` seconds apart, then its usage and `[DONE]`. A stand-in for a large
    model generating a long turn, which a test cannot wait for. `refuse_stream` answers stream
    requests with a 400 and plain ones with the whole reply at once, as serve-llm does. It keeps
    each request's body, and `hung_up` is set when a client goes away in the middle."""

    daemon_threads = True

    def __init__(
        self,
        *,
        chunks: int | None = None,
        interval: float = 0.02,
        word: str = "think ",
        refuse_stream: bool = False,
    ) -> None:
        super().__init__(("127.0.0.1", 0), _StreamingHandler)
        self.chunks, self.interval, self.word = chunks, interval, word
        self.refuse_stream = refuse_stream
        self.bodies: list[dict[str, Any]] = []
        self.hung_up = threading.Event()
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def __enter__(self) -> StreamingEndpoint:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()


class _StreamingHandler(BaseHTTPRequestHandler):
    server: StreamingEndpoint
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        self.server.bodies.append(body)
        if not body.get("stream"):
            self._reply(200, _whole(self.server.word * (self.server.chunks or 1)))
        elif self.server.refuse_stream:
            self._reply(400, openai_error("stream=true is not supported"))
        else:
            self._stream()

    def _reply(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _stream(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        sent = 0
        try:
            while self.server.chunks is None or sent < self.server.chunks:
                self._event({"choices": [{"index": 0, "delta": {"content": self.server.word}}]})
                sent += 1
                time.sleep(self.server.interval)
            self._event({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
            self._event({"choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": sent}})
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.server.hung_up.set()
        self.close_connection = True

    def _event(self, chunk: dict[str, Any]) -> None:
        self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
        self.wfile.flush()

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the tests read `bodies` and `hung_up` instead."""


def _whole(text: str) -> dict[str, Any]:
    message = {"role": "assistant", "content": text}
    return {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}

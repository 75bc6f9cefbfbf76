from __future__ import annotations

from enum import StrEnum


class Queue(StrEnum):
    """Every queue questweb uses. GPU work runs only on GPU, in a solo-pool worker."""

    DEFAULT = "default"
    CPU = "cpu"
    GPU = "gpu"

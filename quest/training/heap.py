"""Keeping a long CPU evaluation's memory flat: glibc's malloc, not the tensors, made it grow.

Batched decoding runs in whichever rollout thread asks last, so its tensors land in up to one
malloc arena per thread, and glibc's dynamic mmap threshold soon puts every tensor under 32 MB
(a layer's keys and values for a session are a few MB) on those heaps, where freed blocks stay
mapped. Twelve sessions of 3,300 tokens left a process at 9.2 GB after one wave, and evaluation
waves grew until a 24 GB machine killed the loop. A fixed 1 MB mmap threshold gives such
tensors back to the system when they are freed, two arenas bound the rest, and `trim` returns
what the heaps hold free between waves. Elsewhere than glibc this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import gc
from typing import Any

_M_MMAP_THRESHOLD = -3  # mallopt parameters, from glibc's malloc.h
_M_ARENA_MAX = -8
MMAP_THRESHOLD = 1 << 20
ARENAS = 2


@functools.cache
def _libc() -> Any | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        libc = ctypes.CDLL(name)
        libc.mallopt  # noqa: B018  (glibc only)
        libc.malloc_trim  # noqa: B018
    except (OSError, AttributeError):
        return None
    return libc


@functools.cache
def bound() -> bool:
    """Sets the mmap threshold and the arena count once per process; whether it could."""
    libc = _libc()
    if libc is None:
        return False
    ok = libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1
    return bool(libc.mallopt(_M_ARENA_MAX, ARENAS) == 1 and ok)


def trim() -> None:
    """Collects Python's garbage and gives the heaps' free memory back to the system."""
    gc.collect()
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)

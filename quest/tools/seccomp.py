"""The seccomp filter that bubblewrap installs on the PythonInterpreter's child just before it
starts Python (`bwrap --seccomp FD`), written here as classic BPF so that no libseccomp is
needed. It is what bounds the sandbox's tasks: the code runs as its one task and cannot start
another, process or thread.

Threads are refused as well as processes because nothing else bounds them. A thread whose stack
the C library allocates counts against the address-space limit, but a raw clone through ctypes
(CLONE_VM | CLONE_THREAD on a stack the code already holds) costs no memory: it started 1,000
host tasks in 0.03 s when the filter let threads through. RLIMIT_NPROC cannot stand in for a
count: the kernel exempts tasks whose real uid is root on the host, and bwrap maps the sandbox's
uid to the worker's, so under a root worker a limit of 8 let 200 clones through; it binds only
under a non-root worker. A filter cannot count, so the threads go. The jail's environment sets
OpenBLAS, OpenMP, MKL and pyarrow's jemalloc to one thread, so numpy and pandas still import.

Refused with EPERM: clone, fork and vfork (new tasks); namespaces and mounts (unshare, setns,
mount and the new mount API, chroot, pivot_root); reaching other processes (ptrace,
process_vm_readv/writev); kernel interfaces that are frequent privilege escalation routes and
that Python never needs (bpf, perf_event_open, userfaultfd, io_uring, the key ring). clone3
answers ENOSYS, so that the C library falls back to clone (and its EPERM) as on an older
kernel. Any other architecture than the filter's (32-bit or x32 system calls on x86_64) kills
the process: the numbers below would mean other calls there.
"""

from __future__ import annotations

import errno
import platform
import struct
from dataclasses import dataclass

# struct seccomp_data (linux/seccomp.h): int nr; __u32 arch; __u64 ip; __u64 args[6].
_NR, _ARCH = 0, 4
_LOAD = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ, _JGE = 0x15, 0x35  # BPF_JMP | BPF_K | op
_RETURN = 0x06  # BPF_RET | BPF_K
_KILL_PROCESS, _ALLOW, _ERRNO = 0x80000000, 0x7FFF0000, 0x00050000
_X32_SYSCALL_BIT = 0x40000000


@dataclass(frozen=True)
class _Arch:
    audit: int  # AUDIT_ARCH_* (linux/audit.h)
    clone3: int
    denied: tuple[int, ...]
    x32: bool  # whether x32 system calls (numbers with _X32_SYSCALL_BIT) reach this filter


# System call numbers: x86_64 from asm/unistd_64.h, aarch64 from asm-generic/unistd.h.
_DENIED = {
    "clone": (56, 220),
    "fork": (57, None),
    "vfork": (58, None),
    "unshare": (272, 97),
    "setns": (308, 268),
    "mount": (165, 40),
    "umount2": (166, 39),
    "pivot_root": (155, 41),
    "chroot": (161, 51),
    "open_tree": (428, 428),
    "move_mount": (429, 429),
    "fsopen": (430, 430),
    "fsconfig": (431, 431),
    "fsmount": (432, 432),
    "fspick": (433, 433),
    "mount_setattr": (442, 442),
    "ptrace": (101, 117),
    "process_vm_readv": (310, 270),
    "process_vm_writev": (311, 271),
    "bpf": (321, 280),
    "perf_event_open": (298, 241),
    "userfaultfd": (323, 282),
    "io_uring_setup": (425, 425),
    "io_uring_enter": (426, 426),
    "io_uring_register": (427, 427),
    "keyctl": (250, 219),
    "add_key": (248, 217),
    "request_key": (249, 218),
}


def _numbers(column: int) -> tuple[int, ...]:
    return tuple(nr for numbers in _DENIED.values() if (nr := numbers[column]) is not None)


_ARCHES = {
    "x86_64": _Arch(audit=0xC000003E, clone3=435, denied=_numbers(0), x32=True),
    "aarch64": _Arch(audit=0xC00000B7, clone3=435, denied=_numbers(1), x32=False),
}


def seccomp_filter(machine: str | None = None) -> bytes | None:
    """The filter as the array of `struct sock_filter` that bwrap reads, or None where this
    module has no system call table for the machine's architecture."""
    arch = _ARCHES.get(machine or platform.machine())
    if arch is None:
        return None
    refuse = _ret(_ERRNO | errno.EPERM)
    code = [_load(_ARCH), _jump(_JEQ, arch.audit, 1, 0), _ret(_KILL_PROCESS), _load(_NR)]
    if arch.x32:
        code += [_jump(_JGE, _X32_SYSCALL_BIT, 0, 1), _ret(_KILL_PROCESS)]
    code += [_jump(_JEQ, arch.clone3, 0, 1), _ret(_ERRNO | errno.ENOSYS)]
    for nr in arch.denied:
        code += [_jump(_JEQ, nr, 0, 1), refuse]
    code += [_ret(_ALLOW)]
    return b"".join(code)


def _load(offset: int) -> bytes:
    return struct.pack("=HBBI", _LOAD, 0, 0, offset)


def _jump(op: int, value: int, if_true: int, if_false: int) -> bytes:
    return struct.pack("=HBBI", op, if_true, if_false, value)


def _ret(action: int) -> bytes:
    return struct.pack("=HBBI", _RETURN, 0, 0, action)

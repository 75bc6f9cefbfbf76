"""The seccomp filter that bubblewrap installs on the PythonInterpreter's child just before it
starts Python (`bwrap --seccomp FD`), written here as classic BPF so that no libseccomp is
needed. It is what bounds processes: RLIMIT_NPROC does not bind a worker running as root (the
kernel exempts uid 0, even behind a user namespace), so the filter refuses new processes
outright and lets threads through (each thread's stack counts against the address-space limit,
which bounds them).

Refused with EPERM: fork, vfork and clone without CLONE_THREAD (new processes); namespaces and
mounts (unshare, setns, mount and the new mount API, chroot, pivot_root); reaching other
processes (ptrace, process_vm_readv/writev); kernel interfaces that are frequent privilege
escalation routes and that Python never needs (bpf, perf_event_open, userfaultfd, io_uring,
the key ring). clone3 answers ENOSYS, so that the C library falls back to clone, whose flags
the filter can read. Any other architecture than the filter's (32-bit or x32 system calls on
x86_64) kills the process: the numbers below would mean other calls there.
"""

from __future__ import annotations

import errno
import platform
import struct
from dataclasses import dataclass

# struct seccomp_data (linux/seccomp.h): int nr; __u32 arch; __u64 ip; __u64 args[6].
_NR, _ARCH, _ARG0_LOW = 0, 4, 16
_LOAD = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ, _JGE, _JSET = 0x15, 0x35, 0x45  # BPF_JMP | BPF_K | op
_RETURN = 0x06  # BPF_RET | BPF_K
_KILL_PROCESS, _ALLOW, _ERRNO = 0x80000000, 0x7FFF0000, 0x00050000
_CLONE_THREAD = 0x00010000
_X32_SYSCALL_BIT = 0x40000000


@dataclass(frozen=True)
class _Arch:
    audit: int  # AUDIT_ARCH_* (linux/audit.h)
    clone: int
    clone3: int
    denied: tuple[int, ...]
    x32: bool  # whether x32 system calls (numbers with _X32_SYSCALL_BIT) reach this filter


# System call numbers: x86_64 from asm/unistd_64.h, aarch64 from asm-generic/unistd.h.
_DENIED = {
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
    "x86_64": _Arch(audit=0xC000003E, clone=56, clone3=435, denied=_numbers(0), x32=True),
    "aarch64": _Arch(audit=0xC00000B7, clone=220, clone3=435, denied=_numbers(1), x32=False),
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
    # clone: allowed only for a thread (its flags are the first argument's low 32 bits).
    code += [_jump(_JEQ, arch.clone, 0, 3), _load(_ARG0_LOW), _jump(_JSET, _CLONE_THREAD, 1, 0)]
    code += [refuse, _ret(_ALLOW)]
    return b"".join(code)


def _load(offset: int) -> bytes:
    return struct.pack("=HBBI", _LOAD, 0, 0, offset)


def _jump(op: int, value: int, if_true: int, if_false: int) -> bytes:
    return struct.pack("=HBBI", op, if_true, if_false, value)


def _ret(action: int) -> bytes:
    return struct.pack("=HBBI", _RETURN, 0, 0, action)

"""A seccomp filter that keeps sandboxed commands off Unix sockets.

A read-only mount does not stop `connect()` to a socket file, and behind
some sockets sits a way out of any sandbox: the user's systemd
(`systemd-run --user ...` runs a command outside), the Docker daemon (root),
an ssh-agent. So creating an AF_UNIX socket fails with EPERM, as in
Anthropic's sandbox runtime. `socketpair()` (pipes between a process and its
own children) stays allowed. io_uring is refused too: it can create sockets
without the `socket` system call.

The program is classic BPF, as bwrap's `--seccomp FD` expects: a list of
(code, jt, jf, k) instructions over `struct seccomp_data` (nr at offset 0,
arch at 4, args[0] at 16; little-endian on both architectures we know).
"""

from __future__ import annotations

import platform
import struct

_LD_ABS_W = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_RET = 0x06  # BPF_RET | BPF_K

_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
_EPERM = 1
_ENOSYS = 38
_AF_UNIX = 1
_X32_BIT = 0x40000000
_IO_URING_SETUP = 425  # the same number on every architecture since 5.1

# machine -> (AUDIT_ARCH_*, the `socket` system call's number)
_ARCHES = {
    "x86_64": (0xC000003E, 41),
    "aarch64": (0xC00000B7, 198),
}


def unix_socket_filter() -> bytes:
    """The filter for this machine; ValueError where its system calls are unknown."""
    machine = platform.machine()
    if machine not in _ARCHES:
        raise ValueError(f"no seccomp filter for {machine}")
    arch, socket_nr = _ARCHES[machine]
    program = [
        (_LD_ABS_W, 0, 0, 4),  # arch
        (_JEQ, 1, 0, arch),
        (_RET, 0, 0, _ERRNO | _ENOSYS),  # another ABI (32-bit calls): nothing runs
        (_LD_ABS_W, 0, 0, 0),  # system call number
        (_JGE, 0, 1, _X32_BIT),
        (_RET, 0, 0, _ERRNO | _ENOSYS),  # the x32 ABI
        (_JEQ, 0, 1, _IO_URING_SETUP),
        (_RET, 0, 0, _ERRNO | _EPERM),
        (_JEQ, 0, 3, socket_nr),
        (_LD_ABS_W, 0, 0, 16),  # socket(domain, ...): the low half of args[0]
        (_JEQ, 0, 1, _AF_UNIX),
        (_RET, 0, 0, _ERRNO | _EPERM),
        (_RET, 0, 0, _ALLOW),
    ]
    return b"".join(struct.pack("=HBBI", *instruction) for instruction in program)

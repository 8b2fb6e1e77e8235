"""The Docker sandbox's seccomp profile (seccomp.json) compiled to a BPF program for `bwrap --seccomp`.

Compiled here with libseccomp (through ctypes: the library bwrap's own distributions ship), for this
machine's architecture only, the way the Docker engine reads the profile: a rule applies unless it
names other architectures or needs a capability (the sandbox grants none); its argument conditions
all hold together; the default action is the profile's (an errno)."""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import json
import os
import platform
from pathlib import Path
from typing import Any

PROFILE = Path(__file__).with_name("seccomp.json")
ARCH = {"x86_64": "amd64", "aarch64": "arm64"}.get(platform.machine(), platform.machine())
ACT_ALLOW = 0x7FFF0000
ACT_ERRNO = 0x00050000
OPS = {"SCMP_CMP_NE": 1, "SCMP_CMP_LT": 2, "SCMP_CMP_LE": 3, "SCMP_CMP_EQ": 4, "SCMP_CMP_GE": 5, "SCMP_CMP_GT": 6}
OPS["SCMP_CMP_MASKED_EQ"] = 7


class ArgCmp(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("a", ctypes.c_uint64), ("b", ctypes.c_uint64)]


class SeccompError(Exception):
    """libseccomp is missing, or refused the profile."""


def _applies(rule: dict[str, Any]) -> bool:
    inc, exc = rule.get("includes") or {}, rule.get("excludes") or {}
    if inc.get("caps") or inc.get("minKernel"):
        return False
    if inc.get("arches") and ARCH not in inc["arches"]:
        return False
    return not (exc.get("arches") and ARCH in exc["arches"])


def _action(rule: dict[str, Any], errno: int) -> int:
    if rule["action"] == "SCMP_ACT_ALLOW":
        return ACT_ALLOW
    if rule["action"] == "SCMP_ACT_ERRNO":
        return ACT_ERRNO | (int(rule.get("errnoRet", errno)) & 0xFFFF)
    raise SeccompError(f"seccomp.json: action {rule['action']} is not supported")


@functools.cache
def program() -> bytes:
    """The compiled filter; SeccompError when it cannot be made here."""
    name = ctypes.util.find_library("seccomp")
    if name is None:
        raise SeccompError("libseccomp is not installed (Debian and Ubuntu: apt-get install libseccomp2)")
    lib = ctypes.CDLL(name, use_errno=True)
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint]
    lib.seccomp_rule_add_array.argtypes += [ctypes.POINTER(ArgCmp)]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    profile = json.loads(PROFILE.read_text(encoding="utf-8"))
    errno = int(profile.get("defaultErrnoRet", 1))
    ctx = lib.seccomp_init(ACT_ERRNO | errno)
    if not ctx:
        raise SeccompError("seccomp_init failed")
    try:
        for rule in filter(_applies, profile["syscalls"]):
            args = rule.get("args") or []
            cmps = (ArgCmp * max(1, len(args)))(
                *[ArgCmp(a["index"], OPS[a["op"]], a["value"], a.get("valueTwo", 0)) for a in args]
            )
            for syscall in rule["names"]:
                nr = lib.seccomp_syscall_resolve_name(syscall.encode())
                if nr < 0:
                    continue  # not a system call of this architecture or kernel
                if lib.seccomp_rule_add_array(ctx, _action(rule, errno), nr, len(args), cmps) != 0:
                    raise SeccompError(f"libseccomp refused the rule for {syscall}")
        read, write = os.pipe()
        try:
            if lib.seccomp_export_bpf(ctx, write) != 0:
                raise SeccompError("seccomp_export_bpf failed")
            os.close(write)
            write = -1
            chunks = []
            while chunk := os.read(read, 1 << 16):
                chunks.append(chunk)
            return b"".join(chunks)
        finally:
            os.close(read)
            if write >= 0:
                os.close(write)
    finally:
        lib.seccomp_release(ctx)


def memfd() -> int:
    """A file descriptor holding the program, from its start, for one bwrap to read."""
    fd = os.memfd_create("skill-be-seccomp", 0)
    os.write(fd, program())
    os.lseek(fd, 0, os.SEEK_SET)
    return fd

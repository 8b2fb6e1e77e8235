"""The runner and the answer's process as two processes of two uids, joined through a pair folder.

Neither the runner (node/runner.mjs, which keeps the tests and decides the verdicts) nor its
launcher (launch.mjs) is privileged, so neither can start the answer's process under the answer's
uid. The sandbox starts that process (host.mjs) first, under the answer's uid, on two FIFOs in a
pair folder: `in` (fds 3 and 5: read by libuv and by blocking reads, see transport.mjs) and `out`
(fd 4), and writes its exit status to `status` when it ends. The launcher, under the runner's uid,
starts the runner under Node's permission model and, as the command it wraps around the answer's
process, RELAY: it waits for `ready`, copies its fd 3 to `in` and `out` to its fd 4, and when the
answer's process is gone it exits with that process's status (128 + N for a signal, as bwrap
reports it, which the launcher turns back into the signal). So the runner's membrane talks to the
answer's process as before, and nothing of the runner's side holds a privilege the answer could
take: no process of it switches uid.

Each answer gets a fresh pair folder with a fresh name, made after every process of the old answer
is killed: a leftover of an earlier answer can open no FIFO of this one."""

from __future__ import annotations

# $1: the pair folder. The launcher appends the answer's command (node host.mjs): it is not run here.
RELAY = (
    'p=$1; n=0; while [ ! -e "$p/ready" ]; do n=$((n+1)); [ $n -lt 1000 ] || exit 98; sleep 0.01; done; '
    'cat <&3 >"$p/in" & c=$!; cat <"$p/out" >&4; kill $c 2>/dev/null; '
    'n=0; while [ ! -e "$p/status" ] && [ $n -lt 100 ]; do n=$((n+1)); sleep 0.01; done; '
    's=137; read -r s <"$p/status" 2>/dev/null; case $s in ""|*[!0-9]*) s=137;; esac; exit $s'
)
# $1: the pair folder; the rest: the answer's command. Runs as the answer's uid; the status it
# writes is only how the answer's process ended, which that process decides anyway.
HOST = 'unset PWD OLDPWD; p=$1; shift; "$@" 3<>"$p/in" 4<>"$p/out" 5<"$p/in"; s=$?; echo $s >"$p/status.tmp" && mv "$p/status.tmp" "$p/status"'


def relay_wrap(pair: str) -> list[str]:
    """What the runner starts the answer's process under: the relay to the pair folder."""
    return ["/bin/sh", "-c", RELAY, "relay", pair]


def host_command(pair: str, command: list[str]) -> list[str]:
    """The answer's process on the pair folder's FIFOs, its status written when it ends."""
    return ["/bin/sh", "-c", HOST, "host", pair, *command]

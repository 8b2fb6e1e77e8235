#!/usr/bin/env bash
# What the code-test sandboxes need on the machine itself: bubblewrap (bwrap), the sandbox that
# codeTests.sandbox: auto picks when no Docker engine answers, and that tests/integration/codetests
# runs the attack tests against. Idempotent; fails loudly when bwrap cannot be installed or cannot
# make its namespaces here.
set -euo pipefail

fail() {
  echo "35-sandbox-tools: $*" >&2
  exit 1
}

if ! command -v bwrap >/dev/null 2>&1; then
  echo "installing bubblewrap"
  apt-get update -qq || fail "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null || fail "could not install bubblewrap"
fi
# strace: tests/integration/agents/test_gemini_agent.py traces every connect() of an agent CLI run.
if ! command -v strace >/dev/null 2>&1; then
  echo "installing strace"
  apt-get update -qq || fail "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq strace >/dev/null || fail "could not install strace"
fi
bwrap --unshare-all --die-with-parent --ro-bind / / --proc /proc --dev /dev true \
  || fail "bwrap is installed but cannot make its namespaces on this machine"
echo "bwrap $(bwrap --version | awk '{print $2}') works"

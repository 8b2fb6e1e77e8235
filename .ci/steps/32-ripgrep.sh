#!/usr/bin/env bash
# ripgrep (rg): opencode's skill tool needs it on PATH; without it opencode tries to download rg from
# github.com and, offline, every skill load fails ("ripgrep execution failed"). The agent-driver
# tests under tests/integration/agents/ load skills through opencode. Idempotent; fails loudly.
set -euo pipefail

if ! command -v rg >/dev/null 2>&1; then
  echo "installing ripgrep"
  apt-get update -qq || { echo "32-ripgrep: apt-get update failed" >&2; exit 1; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ripgrep >/dev/null \
    || { echo "32-ripgrep: could not install ripgrep" >&2; exit 1; }
fi
echo "rg $(rg --version | head -1 | awk '{print $2}') works"

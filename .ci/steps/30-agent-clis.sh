#!/usr/bin/env bash
# The six agent CLIs the adapters drive, at pinned versions, in a prefix inside the repository
# (never global), so CI tests the same versions every time. The integration tests under
# tests/integration/adapters/ run them against a mock model server on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/../.."

PREFIX=.ci/cache/clis
# The pins live in one file, which the Dockerfile reads too: one `name@version` a line, and npm's
# options (`--before=DATE`) on lines of their own.
PINS=.ci/agent-clis.txt
mapfile -t OPTIONS < <(grep -e '^--' "$PINS")
mapfile -t PACKAGES < <(grep -v -e '^#' -e '^--' -e '^[[:space:]]*$' "$PINS")
[ "${#PACKAGES[@]}" -eq 6 ] || { echo "30-agent-clis: $PINS should list 6 packages, it lists ${#PACKAGES[@]}" >&2; exit 1; }
STAMP="$PREFIX/.installed"
WANT="${OPTIONS[*]} ${PACKAGES[*]}"

if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$WANT" ]; then
  mkdir -p "$PREFIX"
  npm install --global --prefix "$PREFIX" --no-audit --no-fund --loglevel=error "${OPTIONS[@]}" "${PACKAGES[@]}"
  echo "$WANT" > "$STAMP"
fi

BIN="$(cd "$PREFIX/bin" && pwd)"
for exe in claude pi opencode codex gemini copilot; do
  [ -x "$BIN/$exe" ] || { echo "30-agent-clis: $BIN/$exe is missing after install" >&2; exit 1; }
  # Start each once: a CLI that cannot run fails CI here, not in the middle of the tests.
  echo "$exe $(timeout 60 "$BIN/$exe" --version 2>&1 | head -1)"
done
# The network-namespace tests need unshare (util-linux).
command -v unshare >/dev/null || { echo "30-agent-clis: unshare (util-linux) is missing" >&2; exit 1; }

LINE="export PATH=\"\$PATH:$BIN\""
grep -qxF "$LINE" .ci/env 2>/dev/null || echo "$LINE" >> .ci/env

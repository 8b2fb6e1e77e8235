#!/usr/bin/env bash
# skill-be's own TypeScript (the pinned 6.x with the classic compiler API) in its cache, so the
# checks' tests find it installed instead of depending on an install in the middle of a test.
# Needs Node.js 20+ and npm; fails loudly without them.
set -euo pipefail
node --version
npm --version
python - <<'PY'
import sys

from skill_be.checks.typescript import find_node, ensure_ours

ts = ensure_ours(find_node(), lambda line: print(line, file=sys.stderr))
print(f"TypeScript {ts.version} at {ts.module_dir}")
PY

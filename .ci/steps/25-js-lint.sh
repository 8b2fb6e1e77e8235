#!/usr/bin/env bash
# The harness's JavaScript (src/skill_be/codetests/node, tests/node): every .mjs/.cjs/.js parses
# (`node --check`), and Biome, pinned, lints it with biome.json. Biome is installed into a prefix in
# the repository's cache (never global), like the agent CLIs (30-agent-clis.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."

BIOME_VERSION=2.6.8
PREFIX=.ci/cache/biome
STAMP="$PREFIX/.installed"
if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$BIOME_VERSION" ]; then
  mkdir -p "$PREFIX"
  npm install --global --prefix "$PREFIX" --no-audit --no-fund --loglevel=error "@biomejs/biome@$BIOME_VERSION"
  echo "$BIOME_VERSION" > "$STAMP"
fi

mapfile -t FILES < <(find src/skill_be/codetests/node tests/node -type f \( -name '*.mjs' -o -name '*.cjs' -o -name '*.js' \) | sort)
[ "${#FILES[@]}" -gt 0 ] || { echo "25-js-lint: no JavaScript file found" >&2; exit 1; }
for f in "${FILES[@]}"; do
  node --check "$f"
done
echo "node --check: ${#FILES[@]} files parse"
"$PREFIX/bin/biome" lint --config-path=. "${FILES[@]}"

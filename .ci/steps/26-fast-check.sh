#!/usr/bin/env bash
# fast-check, pinned, for the membrane fuzzer (tests/node/membrane-fuzz.test.mjs), installed into a
# prefix in the repository's cache (never global), as 25-js-lint.sh installs Biome. The fuzzer finds
# it there, or wherever SKB_FAST_CHECK names (the package's folder). FAST_CHECK_PREFIX moves the prefix.
set -euo pipefail
cd "$(dirname "$0")/../.."

FAST_CHECK_VERSION=4.11.0
PREFIX="${FAST_CHECK_PREFIX:-.ci/cache/fast-check}"
STAMP="$PREFIX/.installed"
if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$FAST_CHECK_VERSION" ]; then
  mkdir -p "$PREFIX"
  npm install --global --prefix "$PREFIX" --no-audit --no-fund --loglevel=error "fast-check@$FAST_CHECK_VERSION"
  echo "$FAST_CHECK_VERSION" > "$STAMP"
fi
PACKAGE="$PREFIX/lib/node_modules/fast-check"
[ -f "$PACKAGE/lib/fast-check.js" ] || { echo "26-fast-check: $PACKAGE/lib/fast-check.js is missing after install" >&2; exit 1; }
node -e "import('./$PACKAGE/lib/fast-check.js').then((m) => console.log('fast-check', m.default.__version))"

#!/usr/bin/env bash
# GitHub's REST description (@octokit/openapi) and real webhook payloads (@octokit/webhooks-examples)
# for the fake GitHub API in tests/support/fake_github.py, in a prefix inside the repository. They
# are big (the REST description is a 29 MB tarball): installed once, reinstalled only when the pinned
# versions change. Any failure stops CI with the reason.
set -euo pipefail
cd "$(dirname "$0")/../.."

PREFIX=.ci/cache/github
PACKAGES=(
  "@octokit/openapi@23.0.2"
  "@octokit/webhooks-examples@7.6.1"
)
STAMP="$PREFIX/.installed"
WANT="${PACKAGES[*]}"

if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$WANT" ]; then
  mkdir -p "$PREFIX"
  npm install --prefix "$PREFIX" --no-save --no-audit --no-fund --loglevel=error "${PACKAGES[@]}"
  echo "$WANT" > "$STAMP"
fi

for f in \
  "$PREFIX/node_modules/@octokit/openapi/generated/api.github.com.json" \
  "$PREFIX/node_modules/@octokit/webhooks-examples/api.github.com/index.json"; do
  [ -s "$f" ] || { echo "50-github: $f is missing after install" >&2; exit 1; }
done
echo "GitHub REST description and webhook examples in $PREFIX"

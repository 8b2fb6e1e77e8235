#!/usr/bin/env bash
# Debian's chromium, for tests/integration/html/: results.html rendered headless in light and dark
# at two widths. Idempotent: installed once. Any failure stops CI with the reason.
set -euo pipefail

if ! command -v chromium >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq || { echo "60-chromium: apt-get update failed" >&2; exit 1; }
  apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null \
    || { echo "60-chromium: apt-get install chromium failed" >&2; exit 1; }
fi
command -v chromium >/dev/null 2>&1 || { echo "60-chromium: chromium is not on PATH after install" >&2; exit 1; }
chromium --version

#!/usr/bin/env bash
# The package and its development tools.
set -euo pipefail
python -m pip install --quiet --upgrade pip
python -m pip install --quiet -e '.[dev]'
skill-be --version

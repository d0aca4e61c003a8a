#!/usr/bin/env bash
# Regenerates tests/corpus/deepstrike-0.2.77/ from the real deepstrike 0.2.77 Python runtime,
# run offline with scripted model replies. Needs python3 (3.10+) and PyPI; nothing else online.
#
# Usage: scripts/real-corpus/generate.sh [OUT_DIR] [SCENARIO...]
# With scenario names only those are regenerated and MANIFEST.json then lists only them: rebuild
# the committed corpus with no names. DEEPSTRIKE_VENV reuses an existing venv.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$root/tests/corpus/deepstrike-0.2.77}"
shift || true
venv="${DEEPSTRIKE_VENV:-/tmp/agent-replay-deepstrike-0.2.77}"

if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check deepstrike==0.2.77
fi

# Without a scenario list the whole corpus is rebuilt: start from an empty directory so logs
# of renamed or removed scenarios do not linger.
if [ "$#" -eq 0 ]; then
  rm -rf "$out"
fi
mkdir -p "$out"
cd "$here"
PYTHONHASHSEED=0 "$venv/bin/python" generate.py "$out" "$@"

#!/usr/bin/env bash
# Runs the end-to-end test (needs `npm run build` first). Outside CI, a machine without the Debian
# prerequisites skips it with a SKIPPED line; in CI (CI set) a missing prerequisite fails.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
if [ ! -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || ! bash scripts/e2e/setup.sh; then
  if [ -n "${CI:-}" ]; then
    echo "e2e: prerequisites missing in CI (apt-get install -y chromium libkrb5-dev ripgrep; see scripts/e2e/setup.sh)" >&2
    exit 1
  fi
  echo "SKIPPED: end-to-end test (install Debian chromium, libkrb5-dev and ripgrep to run it)"
  exit 0
fi
# The spec is given here, not in the mocharc, so that `bash scripts/e2e/run.sh test/e2e/<file>.e2e.test.ts` runs one file.
if [ $# -eq 0 ]; then set -- "test/e2e/**/*.e2e.test.ts"; fi
exec npx mocha --config test/e2e/.mocharc.json "$@"

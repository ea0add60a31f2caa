#!/usr/bin/env bash
# Copies the pictures the first-hour e2e test takes (test/e2e/firsthour.e2e.test.ts) into media/: the walkthrough's
# step pictures (media/walkthrough/<step>-<light|dark>.png) and the README's screenshots
# (media/screenshots/<editor|panel>-<light|dark>.png), quantised with pngquant (Debian: apt-get install pngquant) to
# keep the VSIX small. Run after `bash scripts/e2e/run.sh test/e2e/firsthour.e2e.test.ts`, look at the pictures,
# commit them.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
from="$root/test-output/e2e"
command -v pngquant >/dev/null || { echo "pngquant is missing: apt-get install pngquant" >&2; exit 1; }
mkdir -p "$root/media/walkthrough" "$root/media/screenshots"
for f in "$from"/walkthrough-media/*.png; do
  pngquant --quality 70-95 --speed 1 --strip --force --output "$root/media/walkthrough/$(basename "$f")" "$f"
done
for f in "$from"/readme/*.png; do
  pngquant --quality 70-95 --speed 1 --strip --force --output "$root/media/screenshots/$(basename "$f")" "$f"
done
ls -l "$root/media/walkthrough" "$root/media/screenshots"

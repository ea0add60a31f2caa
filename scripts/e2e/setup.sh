#!/usr/bin/env bash
# Installs real VS Code (code-server 4.100.3, the last release whose engines allow Node 20) for the
# end-to-end test, from test/e2e/package-lock.json, without network access beyond the npm registry.
#
# Needs Debian packages: chromium (the browser that drives it), libkrb5-dev (code-server's kerberos
# native module) and ripgrep (VS Code's search binary; its npm wrapper would otherwise download it from
# GitHub). `.ci/run` installs them.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
e2e="$root/test/e2e"
bin="$e2e/node_modules/code-server/out/node/entry.js"

if [ -f "$bin" ] && [ -e "$e2e/node_modules/code-server/lib/vscode/node_modules/@vscode/ripgrep/bin/rg" ]; then
  exit 0
fi

for need in /usr/bin/rg /usr/include/krb5.h; do
  [ -e "$need" ] || { echo "e2e setup: $need is missing (apt-get install -y chromium libkrb5-dev ripgrep)" >&2; exit 3; }
done

# @vscode/ripgrep's postinstall looks in $TMPDIR/vscode-ripgrep-cache-<its version>/ before downloading:
# give it Debian's rg packed the way the release asset is.
tmp="$(node -p 'require("os").tmpdir()')"
for version in 1.15.11; do
  cache="$tmp/vscode-ripgrep-cache-$version"
  asset="$cache/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz"
  if [ ! -s "$asset" ]; then
    mkdir -p "$cache/stage"
    cp /usr/bin/rg "$cache/stage/rg"
    tar czf "$asset" -C "$cache/stage" rg
    rm -rf "$cache/stage"
  fi
done

cd "$e2e"
export npm_config_yes=true npm_config_unsafe_perm=true
npm ci --no-audit --no-fund --loglevel=error
if [ ! -d node_modules/code-server/lib/vscode/node_modules ]; then
  # npm skipped code-server's install script: run it the way npm would.
  (cd node_modules/code-server && npm_config_user_agent="npm/11 node/$(node -v) linux x64" sh ./postinstall.sh)
fi
node "$bin" --version >/dev/null
echo "e2e setup: code-server $(node "$bin" --version | head -1) ready"

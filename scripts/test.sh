#!/usr/bin/env bash
# The test suite, in three tiers, each selectable: `bash scripts/test.sh [unit] [e2e] [cloud]`
# (all three when none is named).
#   unit   the checks of the Rust sources (the generated addon types are current, clippy, rustfmt),
#          cargo test for the Rust core, the type checks of the tests and of the page runtime, and
#          the TypeScript unit tests: they run on the sources (tsx), never dist/ nor a browser
#          (both are refused here).
#   e2e    the end-to-end tests: the built CLI, SDK and player, real Chromium, real libav.
#   cloud  the tests that start the AWS emulator (MiniStack).
# A test file names its tier in its first line (`// tier: unit`, `// tier: cloud`); any other is e2e.
# Test files run in processes of their own, one more at a time than the cores, each under a deadline
# (scripts/run-tests.mjs); the unit tier runs beside the other two. Sets everything up first.
# Prints each tier's counts and wall time; the last line is the summary
# `tests: N passed, N failed`.
set -uo pipefail
cd "$(dirname "$0")/.."

usage() { echo "usage: bash scripts/test.sh [unit] [e2e] [cloud]" >&2; }
tiers=("$@")
[ ${#tiers[@]} -eq 0 ] && tiers=(unit e2e cloud)
for tier in "${tiers[@]}"; do
  case "$tier" in unit | e2e | cloud) ;; *) usage; echo "tests: 0 passed, 1 failed"; exit 2 ;; esac
done

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
# Setup and several test files pack this checkout (the package test, each template's deploy):
# scripts/pack.mjs packs it once for the run and copies those tarballs after, while nothing they
# are packed from has changed.
export VIDKIT_PACK_CACHE="$logs/pack-cache"
bash scripts/setup.sh || { echo "tests: 0 passed, 1 failed"; exit 1; }
# cargo test and clippy build where setup built the addon (scripts/cargo-target.sh).
[ -n "${CARGO_TARGET_DIR:-}" ] || CARGO_TARGET_DIR=$(bash scripts/cargo-target.sh) || { echo "tests: 0 passed, 1 failed"; exit 1; }
export CARGO_TARGET_DIR

# The tests run as on a new user's machine: an empty home and cache of their own, so no browser
# probe or other cache left by an earlier run can hide a failure. Rust and its crates stay where
# rustup and cargo put them, and npm keeps its cache (the package test installs the packed tarballs
# with their dependencies from it).
export RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}" CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}"
export npm_config_cache="${npm_config_cache:-$HOME/.npm}"
export HOME="$logs/home" XDG_CACHE_HOME="$logs/cache"
mkdir -p "$HOME" "$XDG_CACHE_HOME"
strip() { sed -e 's/\x1b\[[0-9;]*m//g'; }

passed=0
failed=0
count() { # tier counts: passed, failed
  tier_passed=$((tier_passed + $1))
  tier_failed=$((tier_failed + $2))
}

# One check that is not a test runner (a type check, a lint): one passed or one failed test.
check() { # name, command...
  local name=$1
  shift
  if "$@" >"$logs/check.log" 2>&1; then
    echo "check $name: passed"
    count 1 0
  else
    cat "$logs/check.log"
    echo "check $name: FAILED"
    count 0 1
  fi
}

cargo_tests() {
  cargo test --workspace 2>&1 | tee "$logs/cargo.log"
  local status=${PIPESTATUS[0]} p f
  read -r p f < <(strip <"$logs/cargo.log" |
    awk '/^test result:/ { for (i = 1; i < NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } } END { print p+0, f+0 }')
  # A runner that crashed before its summary counts as a failure, never as zero tests.
  [ "$status" -ne 0 ] && [ "$f" -eq 0 ] && f=1
  count "$p" "$f"
}

uvu_tests() { # log name, test files relative to src/
  local log="$logs/$1.log"
  shift
  [ $# -eq 0 ] && return
  node scripts/run-tests.mjs ${VIDKIT_TEST_RECORD:+--record} "$@" 2>&1 | tee "$log"
  local status=${PIPESTATUS[0]} p f
  read -r p f < <(strip <"$log" | sed -n 's/^uvu: \([0-9]\+\) passed, \([0-9]\+\) failed$/\1 \2/p' | tail -1)
  p=${p:-0} f=${f:-0}
  # A runner that crashed before its summary counts as a failure, never as zero tests.
  [ "$status" -ne 0 ] && [ "$f" -eq 0 ] && f=1
  count "$p" "$f"
}

# Every test file under src/, relative to it, by the tier its first line names: `// tier: unit`
# (on the sources, never dist/ nor a browser), `// tier: cloud` (starts the AWS emulator); any
# other file is end-to-end.
all_tests=$(cd src && find . -name '*.test.ts' -not -path '*/node_modules/*' | sed 's|^\./||' | sort)
tier_files() { # tier
  (cd src && awk -v want="// tier: $1" 'FNR == 1 { if ($0 == want) print FILENAME; nextfile }' $all_tests | sort)
}
unit_tests=$(tier_files unit)
cloud_tests=$(tier_files cloud)
e2e_tests=$(comm -23 <(echo "$all_tests") <(printf '%s\n' $unit_tests $cloud_tests | sort))

# Checks of the Rust sources, one test each. setup.sh has just rebuilt the addon, regenerating
# src/native-addon.d.ts from its #[napi] items.
rust_source_checks() {
  check 'addon types are current (scripts/check-addon-types.sh)' bash scripts/check-addon-types.sh
  check 'cargo clippy -D warnings' cargo clippy --workspace --all-targets --quiet -- -D warnings
  check 'cargo fmt --check' cargo fmt --all --check
}

unit_tier() {
  # The emulator is the cloud tier's: a file that starts it says so.
  local misplaced=() file
  for file in $(cd src && grep -l 'startAwsEmulator(' $all_tests); do
    [[ " $(echo $cloud_tests) " == *" $file "* ]] || misplaced+=("$file (starts the AWS emulator: its first line must be // tier: cloud)")
  done
  if [ ${#misplaced[@]} -gt 0 ]; then
    printf 'scripts/test.sh: %s\n' "${misplaced[@]}"
    count 0 ${#misplaced[@]}
  fi
  rust_source_checks
  cargo_tests
  check 'tests type-check (tsc -p tsconfig.test.json)' npx --no-install tsc -p tsconfig.test.json
  # The code that runs in the page (the runtime setup injects, the glyph page) has a tsconfig of its
  # own, with the DOM's types and no Node's: the build bundles it without a type check.
  check 'page runtime type-check (tsc -p src/runtime/page/tsconfig.json)' npx --no-install tsc -p src/runtime/page/tsconfig.json
  # The benches import the built API (dist/, built by setup): a renamed export breaks them here, not at bench time.
  check 'benches type-check (tsc -p benches/tsconfig.json)' npx --no-install tsc -p benches/tsconfig.json
  # A unit test that reaches dist/ (test-support refuses it) or launches a browser fails.
  printf '#!/bin/sh\necho "a unit test launched a browser: it belongs in the e2e tier (scripts/test.sh)" >&2\nexit 1\n' >"$logs/no-browser"
  chmod +x "$logs/no-browser"
  VIDKIT_TEST_TIER=unit VIDKIT_BROWSER="$logs/no-browser" uvu_tests unit-uvu --tier unit $unit_tests
}

summary=()
# Runs one tier's command, times it, adds its counts to the totals and its line to the summary.
run_tier() { # name, command...
  local name=$1 started=$SECONDS
  shift
  tier_passed=0 tier_failed=0
  echo "== tier $name"
  "$@"
  summary+=("tier $name: $tier_passed passed, $tier_failed failed in $((SECONDS - started)) s")
  passed=$((passed + tier_passed))
  failed=$((failed + tier_failed))
}

unit=no pool=() pooled=()
for tier in "${tiers[@]}"; do
  case "$tier" in
    unit) unit=yes ;;
    e2e) pool+=(--tier e2e $e2e_tests) pooled+=(e2e) ;;
    cloud) pool+=(--tier cloud $cloud_tests) pooled+=(cloud) ;;
  esac
done
# The unit tier runs beside the pool below: its compiles and type checks keep one core busy for
# long stretches (bindgen, tsc), and the end-to-end files take the other. Its output is printed
# whole once the pool is done.
unit_pid=
if [ "$unit" = yes ]; then
  (
    summary=() passed=0 failed=0
    run_tier unit unit_tier
    printf '%s\n' "$passed $failed" "${summary[@]}" >"$logs/unit.result"
  ) >"$logs/unit.out" 2>&1 &
  unit_pid=$!
fi
# The end-to-end and cloud tiers share one pool of lanes, so neither waits for the other's last
# file; the runner counts them apart.
if [ ${#pool[@]} -gt 0 ]; then
  run_tier "${pooled[*]}" uvu_tests pool "${pool[@]}"
  mapfile -t lines < <(strip <"$logs/pool.log" | grep -E '^tier (e2e|cloud): ')
  summary+=("${lines[@]}")
fi
if [ -n "$unit_pid" ]; then
  wait "$unit_pid"
  cat "$logs/unit.out"
  if [ -s "$logs/unit.result" ]; then
    { read -r unit_passed unit_failed; mapfile -t lines; } <"$logs/unit.result"
    passed=$((passed + unit_passed)) failed=$((failed + unit_failed))
    summary=("${lines[@]}" "${summary[@]}")
  else
    # The tier died before its counts were written.
    echo "tier unit: no result"
    failed=$((failed + 1))
  fi
fi

printf '%s\n' "${summary[@]}"
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]

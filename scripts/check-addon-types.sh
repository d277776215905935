#!/usr/bin/env bash
# Fails when src/native-addon.d.ts, as the last `npm run build:native` generated it from the #[napi]
# items, differs from the committed (or staged) file: the TypeScript would be typed against an addon
# that no longer exists.
set -uo pipefail
cd "$(dirname "$0")/.."
file=src/native-addon.d.ts
if ! git ls-files --error-unmatch "$file" >/dev/null 2>&1; then
  echo "$file is not in git: run \`npm run build:native\` and commit it" >&2
  exit 1
fi
if ! git diff --exit-code -- "$file"; then
  echo "$file differs from the declaration the addon's #[napi] items generate (diff above): run \`npm run build:native\` and commit $file" >&2
  exit 1
fi

#!/usr/bin/env bash
# Prints again, at its end, what a ctest log (ctest --output-on-failure) shows of each failed
# test: its result line and the last LINES lines of its output. Where a CI log shows only its end,
# a failure still says why.
# Usage: scripts/failed-tests-output.sh CTEST_LOG [LINES]
set -euo pipefail
log="$1"
lines="${2:-40}"
awk -v lines="$lines" '
  function flush() { if (n) { for (i = (n > lines ? n - lines + 1 : 1); i <= n; ++i) print kept[i] } n = 0 }
  /^ *[0-9]+\/[0-9]+ Test +#[0-9]+: / || /^ *Start +[0-9]+: / {
    flush(); inside = 0
    if ($0 ~ /\*\*\*(Failed|Exception|Timeout)|\(Failed\)|\(Timeout\)/) {
      print "=== " $0; inside = 1
    }
    next
  }
  /^[0-9]+% tests passed/ { flush(); inside = 0 }
  inside { kept[++n] = $0 }
  END { flush() }' "$log"

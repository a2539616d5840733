#!/bin/sh
# Builds the measurement programs of docs/PERFORMANCE.md into build/bench/ (they are not part of
# headway and not built by CMake). Each file's header says what it measures and how to run it.
#   bench/build.sh
set -eu
cd "$(dirname "$0")/.."
mkdir -p build/bench
for f in bench/*.cc; do
  name=$(basename "$f" .cc)
  g++ -std=c++20 -O2 -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Werror -pthread \
    "$f" -o "build/bench/$name"
  echo "built build/bench/$name"
done

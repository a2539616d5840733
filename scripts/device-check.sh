#!/bin/sh
# The cuda target's check on a machine with an NVIDIA GPU, as one command that fits a single
# device call of at most five minutes: builds the baseline and every design (at its defaults) of
# the three kernels with nvcc, checks each against the reference, times the correct ones side by
# side in one runner session per kernel, and prints a table (median, speedup over the baseline,
# ratio to the HBM floor from the measured copy bandwidth).
#
#   scripts/device-check.sh prepare      here, after a build: copies the shared libraries
#                                        headway-cuda-runner needs into build/device-libs
#   scripts/device-check.sh [--sweep] [READINGS]
#                                        there (default 30 readings per module); --sweep adds,
#                                        for each design, every other listed value of each
#                                        parameter, one parameter at a time
#
# There it needs nvcc and python3, and headway-cuda-runner: $HEADWAY_CUDA_RUNNER, else
# build/headway-cuda-runner, carried over with build/device-libs (the device tool's `carry`).
# Writes only under $OUT (or a new folder in /tmp).
set -eu
cd "$(dirname "$0")/.."
if [ "${1:-}" = prepare ]; then
  mkdir -p build/device-libs
  ldd build/headway-cuda-runner | awk '/=> \// { print $3 }' |
    grep -E 'libfmt|libstdc\+\+|libgcc_s' | xargs -r cp -L -t build/device-libs
  ls build/device-libs
  exit 0
fi
if [ -d build/device-libs ]; then
  LD_LIBRARY_PATH="$PWD/build/device-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export LD_LIBRARY_PATH
fi
exec python3 scripts/device_check.py "$@"

# Sourced by scripts/build.sh and scripts/fuzz.sh: sets `launcher` to the cmake flags that put
# ccache in front of the compilers when it is installed, and makes its cache shared by clones:
# paths under the checkout are hashed relative to it and the working folder not at all, so a
# fresh clone elsewhere (CI's) reuses what an earlier build compiled.
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
fi

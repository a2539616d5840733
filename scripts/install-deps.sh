#!/usr/bin/env bash
# Installs headway's build and test dependencies from Debian packages. Idempotent; works as root
# or through sudo. Each package and the part that needs it is listed in the README.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config   # compiler, build
  ccache                                          # build: compiler cache (shared by clones, scripts/build.sh)
  clang                                           # second toolchain (migration tests), clang-tidy
  libclang-rt-14-dev                              # libFuzzer and sanitizer runtimes (scripts/fuzz.sh)
  libsqlite3-dev                                  # store: workspace database
  nettle-dev                                      # store: SHA-256 of the artifacts (Nettle)
  libxxhash-dev                                   # the gate's content hash (XXH3)
  libboost-math-dev                               # statistics: incomplete beta, t and binomial (Boost.Math)
  libgumbo-dev                                    # knowledge: HTML docs parsed as HTML5 (gumbo)
  nlohmann-json3-dev                              # --json output, configs
  libcli11-dev                                    # command line
  libfmt-dev                                      # formatting
  libgtest-dev libgmock-dev                       # tests
  libbenchmark-dev                                # microbenchmarks
  bubblewrap                                      # the sandbox of candidate builds and runs
  libseccomp-dev                                  # the runner's system-call filter
  man-db                                          # tests: the generated man page renders (man -l)
  libtomlplusplus-dev                             # the command target's TOML manifests
  libdnnl-dev libopenblas-dev                     # headway bench --peers: oneDNN and OpenBLAS
  python3                                         # the stand-in toolchain of packs/standin (tests)
  git                                             # headway export: a head as a patch series (git format-patch)
  libcurl4-openssl-dev                            # agents: OpenAI-compatible and Anthropic HTTP APIs
  libkainjow-mustache-dev                         # agents: the role prompt templates (prompts/)
  libcpp-httplib-dev                              # tests: loopback servers standing in for LLM providers
  gnuplot-nox                                     # headway report: plots (SVG)
  graphviz                                        # headway report: Design Trees (dot -Tsvg)
  chromium                                        # tests: the HTML report in a headless browser
  munge slurmctld slurmd slurm-client             # device pools: Slurm (docs/POOL.md); tests: a local cluster
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
echo "install-deps: installing ${missing[*]}"
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}"

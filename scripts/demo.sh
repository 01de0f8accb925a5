#!/usr/bin/env bash
# demo.sh - from a fresh Debian 12 to a vx run of the bundled example
# monorepo (examples/): installs the dependencies, builds vx, runs the build
# twice (the second run is where cache hits show) and prints the task graph
# as a tree (`vx graph --format json` is the same graph for a program).
set -euo pipefail

cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
cmake -S . -B build
cmake --build build -j"$(nproc)"

echo
echo "== vx run build (first run: every task runs)"
./build/vx -C examples run build
echo
echo "== vx run build (second run: nothing changed; with the cache, every task is a hit)"
./build/vx -C examples run build
echo
echo "== vx graph build --format text (each task above the tasks it needs)"
./build/vx -C examples graph build --format text

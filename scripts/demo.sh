#!/bin/sh
# demo.sh - a real example of what tachy does, run by `make demo`.
set -e
cd "$(dirname "$0")/.."
echo "\$ ./tachy help"
./tachy help

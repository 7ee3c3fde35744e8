#!/usr/bin/env bash
# Runs a Windows program under wine with the project's test environment
# (wine-env.sh): the cargo runner for x86_64-pc-windows-gnu and the
# launcher of the Windows side of the interop tests. The program's exit
# status is wine's.
# usage: tests-c/windows/wine-run.sh PROGRAM.exe [ARGS...]
set -euo pipefail
. "$(dirname "$0")/wine-env.sh"
exec wine "$@"

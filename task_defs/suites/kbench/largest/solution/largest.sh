#!/usr/bin/env bash
# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
# The three largest regular files under FOLDER as "SIZE PATH", largest first, ties by path.
dir=${1-}
if [ -z "$dir" ] || [ ! -d "$dir" ]; then
    echo "largest.sh: not a directory: '$dir'" >&2
    exit 1
fi
cd -- "$dir" || exit 1
# %P is the path below the starting point, without "./"; -type f skips links and directories
find . -type f -printf '%s %P\n' | LC_ALL=C sort -k1,1nr -k2 | head -n 3
exit 0

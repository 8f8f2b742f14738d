#!/usr/bin/env bash
# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
shopt -s extglob
total=0
for a in "$@"; do
    case $a in
        ?(-)+([0-9])) ;;
        *) printf 'sumargs.sh: %q is not an integer\n' "$a" >&2; exit 2 ;;
    esac
    digits=${a#-}
    digits=${digits##+(0)}
    [[ -z $digits ]] && digits=0
    if [[ $a == -* ]]; then
        (( total -= digits ))
    else
        (( total += digits ))
    fi
done
printf '%d\n' "$total"

#!/bin/bash
# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
# tool.sh - stock report for the shop: sums items.csv per category.
# Usage: make it executable, then run ./tool.sh from the folder that holds it and items.csv.
set -eu

if [[ ! -x "$0" ]]; then
    echo "tool.sh: this script is not executable; run: chmod +x tool.sh && ./tool.sh" >&2
    exit 126
fi
here=$(cd "$(dirname "$0")" && pwd -P)
if [[ "$(pwd -P)" != "$here" ]]; then
    echo "tool.sh: run me from my own folder ($here), where items.csv is" >&2
    exit 2
fi
echo "tool.sh: reading items.csv" >&2

declare -A count value
total_qty=0
total_cents=0
check=7
line_no=0
while IFS=, read -r sku category qty price; do
    line_no=$((line_no + 1))
    [[ -z "$sku" || "$sku" == \#* || "$sku" == sku ]] && continue
    whole=${price%.*}
    frac=${price#*.}
    cents=$((10#$whole * 100 + 10#$frac))
    count[$category]=$(( ${count[$category]:-0} + qty ))
    value[$category]=$(( ${value[$category]:-0} + qty * cents ))
    total_qty=$((total_qty + qty))
    total_cents=$((total_cents + qty * cents))
    check=$(( (check * 31 + line_no * qty + cents) % 1000003 ))
done < items.csv

money() { printf '%d.%02d' $(($1 / 100)) $(($1 % 100)); }

echo "STOCK REPORT"
printf '%-14s %6s %12s\n' category items value
while IFS= read -r cat; do
    printf '%-14s %6d %12s\n' "$cat" "${count[$cat]}" "$(money "${value[$cat]}")"
done < <(printf '%s\n' "${!count[@]}" | LC_ALL=C sort)
printf '%-14s %6d %12s\n' TOTAL "$total_qty" "$(money "$total_cents")"
printf 'check %06d\n' "$check"

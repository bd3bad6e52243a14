#!/usr/bin/env bash
# tools/line_budget.sh [--total N] [--file N] [dir]: the compiler's size as a reviewed
# metric (tinygrad's habit). Prints the lines of every folder of dir (default <repo>/csrc)
# and the total, then fails (exit 1) when the total exceeds N (default 31000) or any one
# file exceeds the per-file limit (default 900, docs/style.md: a file past that asks to be
# split), naming each file over it. The ctest `line_budget` runs it with the defaults;
# `line_budget_detects_excess` runs it with a total of 100 and expects the failure.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
total_limit=31000
file_limit=900
dir="$root/csrc"
while (($#)); do
  case $1 in
    --total) total_limit=$2; shift 2 ;;
    --file) file_limit=$2; shift 2 ;;
    -h | --help) sed -n '2,7p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) dir=$1; shift ;;
  esac
done
[[ -d $dir ]] || { echo "line_budget: no folder $dir" >&2; exit 2; }

# One "lines path" row per file, counted as `wc -l` counts (newlines).
mapfile -t rows < <(cd "$dir" && find . -type f -print0 | sort -z | xargs -0 wc -l | grep -v ' total$')
((${#rows[@]})) || { echo "line_budget: no files in $dir" >&2; exit 2; }

declare -A per_folder=()
total=0
over=()
for row in "${rows[@]}"; do
  read -r n path <<<"$row"
  path=${path#./}
  folder=$(dirname "$path")
  per_folder[$folder]=$((${per_folder[$folder]:-0} + n))
  total=$((total + n))
  ((n <= file_limit)) || over+=("$path ($n lines)")
done

echo "lines per folder of $dir:"
for folder in $(printf '%s\n' "${!per_folder[@]}" | sort); do
  printf '  %-24s %6d\n' "${folder/#./(top)}" "${per_folder[$folder]}"
done
printf '  %-24s %6d (limit %d)\n' "total" "$total" "$total_limit"
largest=$(printf '%s\n' "${rows[@]}" | sort -n | tail -1)
echo "largest file: ${largest##* ./} ($(awk '{print $1}' <<<"$largest") lines, limit $file_limit)"

status=0
if ((total > total_limit)); then
  echo "line_budget: FAILED: $total lines in total, over the budget of $total_limit" >&2
  status=1
fi
for f in "${over[@]}"; do
  echo "line_budget: FAILED: $f, over $file_limit lines per file: split it" >&2
  status=1
done
exit "$status"

#!/usr/bin/env bash
# bench/diff.sh: kesoku diff over two runs of the same requests (SPEC §16):
# how long it takes and how much memory it holds, for files in one order
# (two runs of one request file, the CI case) and in opposite orders (the
# worst case: every record waits for its partner).
#
#   bench/diff.sh [-n REQUESTS] [-r REPEATS] [KESOKU...]
#
# REQUESTS defaults to 1,000,000 calculate_sum requests; each KESOKU binary
# (default: one built from this checkout) is measured REPEATS times (3),
# interleaved, and the medians printed. Needs GNU time (/usr/bin/time).
set -euo pipefail
cd "$(dirname "$0")/.."

n=1000000 repeats=3
while getopts n:r: opt; do
	case $opt in
	n) n=$OPTARG ;;
	r) repeats=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bins=("$@")
if [ ${#bins[@]} -eq 0 ]; then
	go build -o "$work/kesoku" .
	bins=("$work/kesoku")
fi

echo "generating $n requests and two runs of them" >&2
seq 1 "$n" | awk '{printf "{\"id\":\"call_%d\",\"name\":\"calculate_sum\",\"args\":{\"a\":%d,\"b\":%d}}\n", $1, $1, $1 % 7}' >"$work/req.jsonl"
"${bins[0]}" run -q "$work/req.jsonl" -o "$work/old.jsonl"
"${bins[0]}" run -q "$work/req.jsonl" -o "$work/new.jsonl"
tac "$work/new.jsonl" >"$work/reversed.jsonl"
echo "records: $(du -h "$work/old.jsonl" | cut -f1) a file" >&2

# measure LABEL BIN NEW: one run of diff; appends "wall user sys rss_kib".
measure() {
	local out
	out=$(/usr/bin/time -f '%e %U %S %M' "$2" diff -q "$work/old.jsonl" "$3" 2>&1 >/dev/null | tail -1)
	echo "$out" >>"$work/$1"
}

for _ in $(seq "$repeats"); do
	for i in "${!bins[@]}"; do
		measure "same.$i" "${bins[$i]}" "$work/new.jsonl"
		measure "reversed.$i" "${bins[$i]}" "$work/reversed.jsonl"
	done
done

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf '%-40s %-9s %8s %8s %8s %10s\n' binary order wall_s user_s sys_s peak_MiB
for i in "${!bins[@]}"; do
	for order in same reversed; do
		f="$work/$order.$i"
		printf '%-40s %-9s %8s %8s %8s %10.1f\n' "${bins[$i]}" "$order" \
			"$(cut -d' ' -f1 "$f" | median)" "$(cut -d' ' -f2 "$f" | median)" \
			"$(cut -d' ' -f3 "$f" | median)" "$(cut -d' ' -f4 "$f" | median | awk '{print $1 / 1024}')"
	done
done

#!/usr/bin/env bash
# bench/diff.sh: kesoku diff over two runs of the same requests:
# how long it takes and how much memory it holds, for files in one order
# (two runs of one request file, the CI case) and in opposite orders (the
# worst case: every record waits for its partner).
#
#   bench/diff.sh [-n REQUESTS] [-r REPEATS] [-l MIB] [KESOKU...]
#
# REQUESTS defaults to 1,000,000 calculate_sum requests; each KESOKU binary
# (default: one built from this checkout) is measured REPEATS times (3),
# interleaved, and the medians printed. With -l, the files are instead two
# of one record each, of about MIB MiB, whose content differs: a string
# (changed at its end), an array of numbers (every one changed) and an
# array of objects (every row changed), each compared with the text
# output and with --json. Needs GNU time (/usr/bin/time).
set -euo pipefail
cd "$(dirname "$0")/.."

n=1000000 repeats=3 large=
while getopts n:r:l: opt; do
	case $opt in
	n) n=$OPTARG ;;
	r) repeats=$OPTARG ;;
	l) large=$OPTARG ;;
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

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

if [ -n "$large" ]; then
	bytes=$((large * 1024 * 1024))
	# record FILE SHIFT SHAPE: one record whose content is of SHAPE.
	record() {
		{
			printf '{"id":"r","session_id":"s","parent_id":"call_1","role":"tool","type":"tool_result","status":"responded","name":"t","content":'
			case $3 in
			string) printf '"'; head -c "$bytes" /dev/zero | tr '\0' x; printf '%s"' "$2" ;;
			numbers) printf '['; seq "$2" $((bytes / 8 + $2)) | paste -sd, - | tr -d '\n'; printf ']' ;;
			objects) printf '{"rows":['; seq 1 $((bytes / 24)) | awk -v s="$2" '{printf "%s{\"k\":%d,\"v\":\"row %d\"}", (NR > 1 ? "," : ""), $1, $1 + s}'; printf ']}' ;;
			esac
			printf ',"position":1,"created_at":"2026-11-30T17:10:48Z","duration_ms":0}\n'
		} >"$1"
	}
	printf '%-40s %-8s %-6s %8s %10s\n' binary content output wall_s peak_MiB
	for shape in string numbers objects; do
		record "$work/old.jsonl" 0 $shape
		record "$work/new.jsonl" 1 $shape
		echo "$shape: $(du -h "$work/old.jsonl" | cut -f1) a file" >&2
		for i in "${!bins[@]}"; do
			for out in text json; do
				flag=
				[ $out = json ] && flag=--json
				for _ in $(seq "$repeats"); do
					# diff exits 1: the files differ.
					{ /usr/bin/time -f '%e %M' "${bins[$i]}" diff -q $flag "$work/old.jsonl" "$work/new.jsonl" 2>&1 >/dev/null || true; } | tail -1
				done >"$work/large"
				printf '%-40s %-8s %-6s %8s %10.1f\n' "${bins[$i]}" $shape $out \
					"$(cut -d' ' -f1 "$work/large" | median)" "$(cut -d' ' -f2 "$work/large" | median | awk '{print $1 / 1024}')"
			done
		done
	done
	exit 0
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

printf '%-40s %-9s %8s %8s %8s %10s\n' binary order wall_s user_s sys_s peak_MiB
for i in "${!bins[@]}"; do
	for order in same reversed; do
		f="$work/$order.$i"
		printf '%-40s %-9s %8s %8s %8s %10.1f\n' "${bins[$i]}" "$order" \
			"$(cut -d' ' -f1 "$f" | median)" "$(cut -d' ' -f2 "$f" | median)" \
			"$(cut -d' ' -f3 "$f" | median)" "$(cut -d' ' -f4 "$f" | median | awk '{print $1 / 1024}')"
	done
done

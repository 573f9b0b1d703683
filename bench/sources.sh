#!/usr/bin/env bash
# bench/sources.sh: kesoku's tool sources beside what they replace, in one
# run on one machine (bench/compare.sh --sources runs it):
#
#   - 1,000 calls of a trivial command tool (/bin/echo) with --jobs 16,
#     beside xargs -P 16 running the same command 1,000 times (target:
#     within 1.3×);
#   - 10,000 calls of an MCP server's tool with --jobs 16, beside the same
#     calls made by a plain Go SDK client loop from 16 goroutines
#     (bench/mcpsource), which gives kesoku's overhead per call.
#
#   bench/sources.sh [-n RUNS]
#
# Needs Go, Python 3, xargs and /bin/echo; the SDK module must be in the
# module cache (building kesoku puts it there). Everything goes to
# bench/out.
set -euo pipefail

cd "$(dirname "$0")/.."
repo=$(pwd)
out=$repo/bench/out
runs=3
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=$2; shift 2 ;;
	*) echo "usage: bench/sources.sh [-n RUNS]" >&2; exit 2 ;;
	esac
done
mkdir -p "$out"
echo "== building" >&2
export GOWORK=off
go build -o "$out/kesoku" .
(cd bench/mcpsource && go build -o "$out/mcp-server" ./server && go build -o "$out/mcp-client" ./client)

exec python3 - "$out" "$runs" <<'PY'
import json, os, statistics, subprocess, sys, time

out, runs = sys.argv[1], int(sys.argv[2])
kesoku = f"{out}/kesoku"
cfg = f"{out}/sources.yaml"
with open(cfg, "w") as f:
    f.write(f"""tools:
  echo:
    command: [/bin/echo, "{{{{n}}}}"]
    parameters: {{type: object, properties: {{n: {{type: integer}}}}, required: [n]}}
mcpServers:
  bench:
    command: {out}/mcp-server
""")

def workload(name, n, make):
    path = f"{out}/{name}.jsonl"
    with open(path, "w") as f:
        for i in range(1, n + 1):
            f.write(json.dumps(make(i)) + "\n")
    return path

cmds = workload("echo_1000", 1000, lambda i: {"id": f"call_{i}", "name": "echo", "args": {"n": i}})
calls = workload("mcp_10000", 10000, lambda i: {"id": f"call_{i}", "name": "bench__add", "args": {"a": i, "b": 2 * i}})

def wall(argv, **kw):
    t = time.perf_counter()
    p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kw)
    d = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"{argv[0]}: exit {p.returncode}: {p.stderr.decode()[-500:]}")
    return d

programs = {
    "kesoku command tool": lambda: wall([kesoku, "--config", cfg, "run", cmds, "--jobs", "16", "-q"]),
    "xargs -P 16": lambda: wall(["sh", "-c", "seq 1000 | xargs -P 16 -n 1 /bin/echo"]),
    "kesoku MCP": lambda: wall([kesoku, "--config", cfg, "run", calls, "--jobs", "16", "-q"]),
    "Go SDK client": lambda: wall([f"{out}/mcp-client", "-n", "10000", "-j", "16", f"{out}/mcp-server"]),
}
times = {k: [] for k in programs}
for r in range(runs):  # interleaved, so that a busy moment hurts all alike
    for k, f in programs.items():
        times[k].append(f())
        print(f"run {r+1}: {k}: {times[k][-1]:.2f} s", file=sys.stderr)
m = {k: statistics.median(v) for k, v in times.items()}
load = os.getloadavg()[0]
print(f"medians of {runs} interleaved runs, load average {load:.1f} on {os.cpu_count()} CPUs\n")
print("| workload | kesoku | peer | ratio | target |")
print("| --- | --- | --- | --- | --- |")
print(f"| 1,000 × command tool `/bin/echo N`, `--jobs 16` | {m['kesoku command tool']:.2f} s | xargs -P 16: {m['xargs -P 16']:.2f} s | {m['kesoku command tool']/m['xargs -P 16']:.2f}× | ≤ 1.3× |")
over = (m["kesoku MCP"] - m["Go SDK client"]) / 10000 * 1e6
print(f"| 10,000 × MCP tool `add`, `--jobs 16` | {m['kesoku MCP']:.2f} s | Go SDK client loop, 16 goroutines: {m['Go SDK client']:.2f} s | {m['kesoku MCP']/m['Go SDK client']:.2f}× | kesoku adds {over:.0f} µs a call (wall) |")
PY

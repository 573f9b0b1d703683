#!/usr/bin/env bash
# Builds kesoku's release archives: the release configuration.
#
#   scripts/release.sh VERSION [OS/ARCH...]
#
# For each target (by default linux, darwin and windows, each on amd64 and
# arm64) it builds kesoku with VERSION stamped in (kesoku --version says
# it), without cgo, and packs it with LICENSE, README.md, docs/ and CHANGELOG.md
# into dist/kesoku_VERSION_OS_ARCH.tar.gz (.zip for windows, which needs
# zip); dist/SHA256SUMS lists the archives' checksums, as sha256sum -c
# reads them. $DIST names another directory than dist.
set -euo pipefail

version=${1:-}
if [[ ! $version =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
	echo "usage: scripts/release.sh VERSION [OS/ARCH...]: VERSION is a semantic version such as v1.2.3" >&2
	exit 2
fi
shift
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
	targets=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64)
fi

# $DIST is the caller's: relative to where the script was run from.
dist=${DIST:-}
if [ -n "$dist" ]; then
	mkdir -p "$dist"
	dist=$(cd "$dist" && pwd)
fi
cd "$(dirname "$0")/.."
root=$PWD
if [ -z "$dist" ]; then
	dist=$root/dist
	mkdir -p "$dist"
fi
rm -f "$dist"/kesoku_* "$dist/SHA256SUMS"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for target in "${targets[@]}"; do
	os=${target%/*}
	arch=${target#*/}
	if [ "$os/$arch" != "$target" ] || [ -z "$os" ] || [ -z "$arch" ]; then
		echo "release: $target: want OS/ARCH, such as linux/amd64" >&2
		exit 2
	fi
	name=kesoku_${version#v}_${os}_${arch}
	exe=kesoku
	[ "$os" = windows ] && exe=kesoku.exe
	[ -d "$work/$name" ] && continue # a target named twice
	mkdir "$work/$name"
	echo "release: building $name" >&2
	CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath \
		-ldflags "-s -w -X github.com/kesoku/kesoku/cmd.version=$version" \
		-o "$work/$name/$exe" .
	cp LICENSE README.md CHANGELOG.md "$work/$name/"
	cp -R docs "$work/$name/docs"
	if [ "$os" = windows ]; then
		command -v zip >/dev/null 2>&1 || {
			echo "release: zip is needed for the windows archives (apt-get install zip)" >&2
			exit 1
		}
		(cd "$work" && zip -qr "$dist/$name.zip" "$name")
	else
		tar -C "$work" -czf "$dist/$name.tar.gz" "$name"
	fi
done
(cd "$dist" && sha256sum kesoku_* >SHA256SUMS)
echo "release: $(cd "$root" && realpath --relative-to=. "$dist" 2>/dev/null || echo "$dist"): ${#targets[@]} archives and SHA256SUMS" >&2

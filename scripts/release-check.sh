#!/usr/bin/env bash
# release-check.sh: prove that a release is one GoReleaser run.
#
# Installs the pinned GoReleaser (built from source through the Go module
# proxy; the first build takes about 3 minutes), validates .goreleaser.yaml
# and builds every archive, package and checksum into dist/ without
# publishing anything. Run it from anywhere inside the repository:
#
#   scripts/release-check.sh
#
# Too slow for .ci/run; run it before tagging a release.
set -euo pipefail

GORELEASER_VERSION=v2.15.1

cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"

gobin=$(go env GOBIN)
if [[ -z $gobin ]]; then
	gobin=$(go env GOPATH)/bin
fi
goreleaser=$gobin/goreleaser

if ! "$goreleaser" --version 2>/dev/null | grep -Eq "GitVersion:[[:space:]]+v?${GORELEASER_VERSION#v}\$"; then
	echo "release-check: installing goreleaser $GORELEASER_VERSION (takes a few minutes)" >&2
	go install "github.com/goreleaser/goreleaser/v2@$GORELEASER_VERSION"
fi

echo "release-check: goreleaser check" >&2
"$goreleaser" check

echo "release-check: goreleaser release --snapshot --clean" >&2
"$goreleaser" release --snapshot --clean

# What a release must contain: both OSes and architectures, the packages
# and the checksums; each archive with the binary, docs, man pages and
# completions.
fail=0
for platform in linux_amd64 linux_arm64 darwin_amd64 darwin_arm64; do
	archive=$(ls dist/perfstitch_*_"$platform".tar.gz 2>/dev/null | head -n 1)
	if [[ -z $archive ]]; then
		echo "release-check: no archive for $platform" >&2
		fail=1
		continue
	fi
	listing=$(tar -tzf "$archive")
	for want in perfstitch README.md LICENSE man/perfstitch.1 man/perfstitch-script.1 \
		completions/perfstitch.bash completions/_perfstitch completions/perfstitch.fish; do
		if ! grep -qx "$want" <<<"$listing"; then
			echo "release-check: $archive lacks $want" >&2
			fail=1
		fi
	done
done
for pattern in 'dist/*.deb' 'dist/*.rpm' 'dist/*_checksums.txt'; do
	if ! compgen -G "$pattern" >/dev/null; then
		echo "release-check: nothing matches $pattern" >&2
		fail=1
	fi
done
if [[ $(uname -s)/$(uname -m) == Linux/x86_64 ]]; then
	bin=$(ls dist/perfstitch_linux_amd64*/perfstitch | head -n 1)
	if command -v file >/dev/null && ! file "$bin" | grep -q 'statically linked'; then
		echo "release-check: $bin is not statically linked" >&2
		fail=1
	fi
	# The version line must carry what the linker injected.
	version_line=$("$bin" --version)
	echo "$version_line"
	if ! grep -q "commit $(git rev-parse --short=12 HEAD)" <<<"$version_line"; then
		echo "release-check: --version does not name commit $(git rev-parse --short=12 HEAD)" >&2
		fail=1
	fi
	if grep -q '(devel)' <<<"$version_line"; then
		echo "release-check: --version has no injected version" >&2
		fail=1
	fi
fi
if ((fail)); then
	echo "release-check: FAILED" >&2
	exit 1
fi
echo "release-check: OK" >&2

#!/usr/bin/env bash
# release-check.sh: prove that a release is one GoReleaser run whose output
# a distribution packager would take.
#
# Installs the pinned GoReleaser (built from source through the Go module
# proxy, once per machine: about 5 minutes and 1.6 GB on 2 cores; v2.15.1
# is the newest that builds with this module's Go, as v2.18 needs a newer
# one) and lintian and rpmlint (Debian packages, when run as root), then:
#
#   - builds every archive, package and checksum twice into dist/ and
#     requires the two checksum files to be identical (reproducible from
#     the commit: entries owned by root, dated by the commit);
#   - checks each archive's contents;
#   - requires lintian and rpmlint to report no error and no warning
#     (overrides are in .goreleaser.yaml and scripts/rpmlint.toml, each with
#     its reason);
#   - requires every Linux binary to be statically linked and every binary
#     to carry the commit; builds the README's `CGO_ENABLED=0 go build`
#     from a clone and requires the same of it.
#
# Run it from anywhere inside a clean clone (a second run reuses the Go
# build cache and takes about a minute):
#
#   scripts/release-check.sh
set -euo pipefail

GORELEASER_VERSION=v2.15.1

cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
root=$PWD
commit=$(git rev-parse HEAD)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

say() { echo "release-check: $*" >&2; }
fail=0
bad() {
	say "$*"
	fail=1
}

gobin=$(go env GOBIN)
if [[ -z $gobin ]]; then
	gobin=$(go env GOPATH)/bin
fi
goreleaser=$gobin/goreleaser
if ! "$goreleaser" --version 2>/dev/null | grep -Eq "GitVersion:[[:space:]]+v?${GORELEASER_VERSION#v}\$"; then
	say "installing goreleaser $GORELEASER_VERSION (takes a few minutes)"
	go install "github.com/goreleaser/goreleaser/v2@$GORELEASER_VERSION"
fi

# lintian, rpmlint (with python3-magic, without which it sees no binary in
# any package) and file.
missing=()
for tool in lintian:lintian rpmlint:rpmlint file:file; do
	command -v "${tool%%:*}" >/dev/null || missing+=("${tool#*:}")
done
dpkg-query -W -f '${Status}' python3-magic 2>/dev/null | grep -q 'ok installed' || missing+=(python3-magic)
if ((${#missing[@]})); then
	if [[ $(id -u) != 0 ]] || ! command -v apt-get >/dev/null; then
		say "needs ${missing[*]}: install them and run again"
		exit 1
	fi
	say "apt-get install ${missing[*]}"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

say "goreleaser check"
"$goreleaser" check

# Two snapshot builds of the same commit must give the same bytes.
for run in 1 2; do
	say "goreleaser release --snapshot --clean (build $run of 2)"
	if ! "$goreleaser" release --snapshot --clean >"$work/build$run.log" 2>&1; then
		cat "$work/build$run.log" >&2
		say "build $run failed"
		exit 1
	fi
	mkdir "$work/$run"
	cp dist/*_checksums.txt dist/*.tar.gz dist/*.deb dist/*.rpm "$work/$run/"
done
if cmp -s "$work"/1/*_checksums.txt "$work"/2/*_checksums.txt; then
	say "two builds, identical checksums: $(wc -l <"$work"/2/*_checksums.txt) artifacts"
else
	bad "the two builds differ:"
	diff "$work"/1/*_checksums.txt "$work"/2/*_checksums.txt >&2 || true
fi
cat dist/*_checksums.txt

# What a release must contain: both OSes and architectures, the packages
# and the checksums; each archive with the binary, docs, man pages and
# completions, owned by root and dated by the commit.
commit_date=$(TZ=UTC git log -1 --date=format-local:'%Y-%m-%d %H:%M' --format=%cd HEAD)
for platform in linux_amd64 linux_arm64 darwin_amd64 darwin_arm64; do
	archive=$(ls dist/perfstitch_*_"$platform".tar.gz 2>/dev/null | head -n 1)
	if [[ -z $archive ]]; then
		bad "no archive for $platform"
		continue
	fi
	listing=$(tar -tzf "$archive")
	for want in perfstitch README.md LICENSE man/perfstitch.1 man/perfstitch-script.1 \
		completions/perfstitch.bash completions/_perfstitch completions/perfstitch.fish; do
		if ! grep -qx "$want" <<<"$listing"; then
			bad "$archive lacks $want"
		fi
	done
	while read -r _ owner _ day time name; do
		if [[ $owner != root/root || "$day $time" != "$commit_date" ]]; then
			bad "$archive: $name is $owner, $day $time; want root/root, $commit_date"
		fi
	done < <(TZ=UTC tar -tvzf "$archive")
done
for pattern in 'dist/*.deb' 'dist/*.rpm' 'dist/*_checksums.txt'; do
	if ! compgen -G "$pattern" >/dev/null; then
		bad "nothing matches $pattern"
	fi
done

# Every man page in both packages.
for page in docs/man/*.1; do
	want=usr/share/man/man1/$(basename "$page").gz
	for pkg in dist/*.deb; do
		grep -q " \./$want\$" <<<"$(dpkg-deb -c "$pkg")" || bad "$pkg lacks /$want"
	done
	for pkg in dist/*.rpm; do
		grep -qx "/$want" <<<"$(rpm -qlp "$pkg" 2>/dev/null)" || bad "$pkg lacks /$want"
	done
done

say "lintian"
if ! lintian --fail-on error,warning dist/*.deb >"$work/lintian.log" 2>&1; then
	bad "lintian reports errors or warnings"
fi
grep -v 'running with root privileges' "$work/lintian.log" || true
say "rpmlint"
# rpmlint unpacks each package with `rpm2cpio | cpio -id`, and nfpm's
# payloads have absolute paths: GNU cpio would write them into / (and
# rpmlint would then find no files to check). A cpio first on PATH that
# keeps them relative stops both.
mkdir "$work/bin"
printf '#!/bin/sh\nexec %s --no-absolute-filenames "$@"\n' "$(command -v cpio)" >"$work/bin/cpio"
chmod +x "$work/bin/cpio"
if ! PATH=$work/bin:$PATH rpmlint -c scripts/rpmlint.toml dist/*.rpm >"$work/rpmlint.log" 2>&1; then
	bad "rpmlint failed"
fi
grep -v '^=\+ rpmlint session starts\|^rpmlint: \|^configuration:\|^checks: \|^$\|^ *[/a-z].*\.toml$\|^=\+$' "$work/rpmlint.log" || true
if ! grep -q ' 0 errors, 0 warnings' "$work/rpmlint.log"; then
	bad "rpmlint reports errors or warnings"
fi

# Every binary: static (Linux: file says so; macOS binaries always link
# libSystem, so there the build must have had cgo off), and the commit
# injected.
for bin in dist/perfstitch_*/perfstitch; do
	info=$(file -b "$bin")
	case $info in
	ELF*)
		grep -q 'statically linked' <<<"$info" || bad "$bin is not statically linked: $info"
		;;
	Mach-O*) ;;
	*) bad "$bin: unexpected file type: $info" ;;
	esac
	meta=$(go version -m "$bin")
	grep -q 'CGO_ENABLED=0' <<<"$meta" || bad "$bin was built with cgo"
	# -trimpath keeps -ldflags out of the build info: look for the value.
	grep -aq "$commit" "$bin" || bad "$bin does not carry commit $commit"
	echo "$bin: ${info%%,*}, $(grep -o 'statically linked' <<<"$info" || echo 'cgo off')"
done

version_ok() { # version_ok WHAT LINE: the line names the commit
	echo "$1: $2"
	grep -q "commit ${commit:0:12}" <<<"$2" || bad "$1: version does not name commit ${commit:0:12}"
}
if [[ $(uname -s)/$(uname -m) == Linux/x86_64 ]]; then
	bin=$(ls dist/perfstitch_linux_amd64*/perfstitch | head -n 1)
	line=$("$bin" version)
	version_ok "release binary" "$line"
	grep -q '(devel)' <<<"$line" && bad "release binary has no injected version"
	# The package installs the same binary.
	dpkg-deb --fsys-tarfile dist/perfstitch_*_amd64.deb | tar -xO ./usr/bin/perfstitch >"$work/deb-bin"
	cmp -s "$work/deb-bin" "$bin" || bad "the .deb's /usr/bin/perfstitch is not the archive's binary"
fi

# The README's route from a clone, with Go's default VCS stamping (this
# machine's go env may turn it off): static, and the commit comes from the
# stamp.
say "README build: CGO_ENABLED=0 go build (fresh clone)"
git clone -q "$root" "$work/clone"
(cd "$work/clone" && GOFLAGS=-buildvcs=auto CGO_ENABLED=0 go build -o "$work/dev" .)
file -b "$work/dev" | grep -q 'statically linked' || bad "CGO_ENABLED=0 go build gives a dynamic binary"
version_ok "go build" "$("$work/dev" version)"
if go list -deps . | grep -qx 'net/http'; then
	bad "the binary links net/http"
fi

if ((fail)); then
	say "FAILED"
	exit 1
fi
say "OK"

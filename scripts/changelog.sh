#!/usr/bin/env bash
# changelog.sh VERSION RELEASE: print the package changelog (in the YAML that
# nfpm reads, which writes /usr/share/doc/perfstitch/changelog.Debian.gz
# and the RPM %changelog from it): one entry for VERSION, dated by the
# commit, listing the commits since the last tag (the last 50 when
# untagged), merges left out. Only git history goes in, so the same
# commit gives the same changelog.
#
# Subjects are cut to 72 characters, so changelog lines stay under 80.
#
#   scripts/changelog.sh 1.2.3 1 > changelog.yml
set -euo pipefail

version=${1:?usage: changelog.sh VERSION RELEASE}
release=${2:?usage: changelog.sh VERSION RELEASE}
version=${version/-/\~}-$release
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"

range=HEAD
if tag=$(git describe --tags --abbrev=0 HEAD^ 2>/dev/null); then
	range=$tag..HEAD
fi

quote() { printf "'%s'" "${1//\'/\'\'}"; }

printf -- '- semver: %s\n' "$(quote "$version")"
printf '  date: %s\n' "$(TZ=UTC git log -1 --date=format-local:%Y-%m-%dT%H:%M:%SZ --format=%cd HEAD)"
printf '  packager: %s\n' "$(quote 'perfstitch maintainers <perfstitch@users.noreply.github.com>')"
printf '  deb:\n    urgency: medium\n    distributions: [unstable]\n'
printf '  changes:\n'
git log --no-merges --max-count=50 --format='%H %s' "$range" | while read -r hash subject; do
	if ((${#subject} > 72)); then
		subject="${subject:0:69}..."
	fi
	printf '    - commit: %s\n      note: %s\n' "$hash" "$(quote "$subject")"
done

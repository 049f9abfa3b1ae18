#!/usr/bin/env bash
# copyright.sh: print the Debian machine-readable copyright file of the
# perfstitch package (/usr/share/doc/perfstitch/copyright): perfstitch's
# own license and that of every module linked into the static binary,
# read from the module cache (run `go mod download` first). The licenses
# are told apart by their wording; a module whose license is not one of
# the four below stops the script, so nothing ships unlabelled.
#
#   scripts/copyright.sh > copyright
set -euo pipefail

cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"

cat <<'HEAD'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: perfstitch
Upstream-Contact: perfstitch maintainers <perfstitch@users.noreply.github.com>
Source: https://github.com/perfstitch/perfstitch
Comment: The binary is statically linked; the Files paragraphs below name
 the Go modules compiled into it (as vendored sources would be named).

Files: *
Copyright: perfstitch authors
License: Apache-2.0

Files: go/*
Copyright: The Go Authors
License: BSD-3-Clause
Comment: The Go runtime and standard library.
HEAD

used=()
for mod in $(CGO_ENABLED=0 go list -deps -f '{{with .Module}}{{if not .Main}}{{.Path}}@{{.Version}}{{end}}{{end}}' . | sort -u); do
	dir=$(go mod download -json "$mod" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
	license=$(ls "$dir"/LICENSE* "$dir"/COPYING* 2>/dev/null | head -n 1 || true)
	if [[ -z $license ]]; then
		echo "copyright.sh: $mod has no LICENSE file" >&2
		exit 1
	fi
	# A LICENSE file may hold several licenses (klauspost/compress,
	# go.yaml.in/yaml): name each one it holds.
	kinds=()
	grep -q 'Apache License' "$license" && kinds+=(Apache-2.0)
	grep -q 'Permission is hereby granted, free of charge' "$license" && kinds+=(Expat)
	if grep -q 'Neither the name' "$license"; then
		kinds+=(BSD-3-Clause)
	elif grep -q 'Redistribution and use' "$license"; then
		kinds+=(BSD-2-Clause)
	fi
	if ((${#kinds[@]} == 0)); then
		echo "copyright.sh: cannot tell the license of $mod ($license)" >&2
		exit 1
	fi
	kind=$(printf '%s\n' "${kinds[@]}" | sort | paste -sd' ' | sed 's/ / and /g')
	holders=$(grep -hiE '^[[:space:]]*copyright[[:space:]]+(\(c\)|©|[0-9]{4})' "$license" | sed -E 's/^[[:space:]]*[Cc]opyright[[:space:]]+(\([cC]\)[[:space:]]*)?//; s/[[:space:]]*All rights reserved\.?//' | sort -u || true)
	if [[ -z $holders ]]; then
		holders="the ${mod%@*} authors"
	fi
	printf '\nFiles: go-modules/%s/*\nCopyright: %s\nLicense: %s\n' "${mod%@*}" "$(sed '2,$s/^/ /' <<<"$holders")" "$kind"
	used+=("${kinds[@]}")
done

# The license texts: Apache-2.0 ships with Debian (common-licenses); the
# others are short enough to give whole.
printf '\nLicense: Apache-2.0\n On Debian systems the full text of the Apache License, Version 2.0 is in\n /usr/share/common-licenses/Apache-2.0.\n'
printf '\nLicense: BSD-3-Clause\n Redistribution and use in source and binary forms, with or without\n modification, are permitted provided that the following conditions are met:\n .\n 1. Redistributions of source code must retain the above copyright notice,\n this list of conditions and the following disclaimer.\n .\n 2. Redistributions in binary form must reproduce the above copyright notice,\n this list of conditions and the following disclaimer in the documentation\n and/or other materials provided with the distribution.\n .\n 3. Neither the name of the copyright holder nor the names of its\n contributors may be used to endorse or promote products derived from this\n software without specific prior written permission.\n .\n THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS"\n AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE\n IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE\n ARE DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR CONTRIBUTORS BE\n LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR\n CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF\n SUBSTITUTE GOODS OR SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS\n INTERRUPTION) HOWEVER CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN\n CONTRACT, STRICT LIABILITY, OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE)\n ARISING IN ANY WAY OUT OF THE USE OF THIS SOFTWARE, EVEN IF ADVISED OF THE\n POSSIBILITY OF SUCH DAMAGE.\n'
for kind in $(printf '%s\n' "${used[@]}" | sort -u); do
	case $kind in
	Expat)
		printf '\nLicense: Expat\n Permission is hereby granted, free of charge, to any person obtaining a copy\n of this software and associated documentation files (the "Software"), to deal\n in the Software without restriction, including without limitation the rights\n to use, copy, modify, merge, publish, distribute, sublicense, and/or sell\n copies of the Software, and to permit persons to whom the Software is\n furnished to do so, subject to the following conditions:\n .\n The above copyright notice and this permission notice shall be included in\n all copies or substantial portions of the Software.\n .\n THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR\n IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,\n FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE\n AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER\n LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,\n OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN\n THE SOFTWARE.\n'
		;;
	BSD-2-Clause)
		printf '\nLicense: BSD-2-Clause\n Redistribution and use in source and binary forms, with or without\n modification, are permitted provided that the following conditions are met:\n .\n 1. Redistributions of source code must retain the above copyright notice,\n this list of conditions and the following disclaimer.\n .\n 2. Redistributions in binary form must reproduce the above copyright notice,\n this list of conditions and the following disclaimer in the documentation\n and/or other materials provided with the distribution.\n .\n THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS"\n AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE\n IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE\n ARE DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR CONTRIBUTORS BE\n LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR\n CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF\n SUBSTITUTE GOODS OR SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS\n INTERRUPTION) HOWEVER CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN\n CONTRACT, STRICT LIABILITY, OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE)\n ARISING IN ANY WAY OUT OF THE USE OF THIS SOFTWARE, EVEN IF ADVISED OF THE\n POSSIBILITY OF SUCH DAMAGE.\n'
		;;
	esac
done

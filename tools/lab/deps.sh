#!/bin/sh
# Install every Debian package the project needs (tools/lab/packages.txt and
# tools/lab/packages.d/*.txt: one list per feature that needs its own), once.
# Idempotent and quick when all are present: CI and the README's commands call it.
set -eu
here=$(dirname "$0")
list=$(cat "$here/packages.txt" "$here"/packages.d/*.txt 2>/dev/null |
	grep -v '^[[:space:]]*#' | tr -s ' \n' ' ')
missing=
for p in $list; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing:$missing"
if [ "$(id -u)" != 0 ]; then
	echo "deps: need root to install packages (run as root or install them yourself)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# Debian's kernel packages would build an initrd for every kernel; the lab
# boots its own initramfs, so skip that.
export INITRD=No
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing

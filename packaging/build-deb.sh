#!/bin/sh
# packaging/build-deb.sh [OUTDIR]: `make deb`. Copies the source tree (without
# .git, build folders and node_modules) to OUTDIR/toolgate-VERSION, builds
# the binary package there with dpkg-buildpackage (debian/rules: the CMake
# build of the toolgate target only; no tests: DEB_BUILD_OPTIONS=nocheck)
# and runs lintian on the result, failing on any error or warning. The .deb
# ends up in OUTDIR (default build/deb); its path is the last line printed.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$here/build/deb}
mkdir -p "$out"
out=$(cd "$out" && pwd)

for t in dpkg-buildpackage dpkg-parsechangelog dh lintian; do
	command -v "$t" >/dev/null 2>&1 ||
		{ echo "build-deb: $t is missing (sh scripts/install-deps.sh installs it)" >&2; exit 3; }
done

version=$(cd "$here" && dpkg-parsechangelog -SVersion)
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
stage="$out/toolgate-$version"
rm -rf "$stage"
mkdir -p "$stage"
(cd "$here" && tar --exclude=./.git --exclude=./build --exclude='./build-*' \
	--exclude=node_modules --exclude='./obj-*' --exclude=./debian/toolgate \
	--exclude=./debian/.debhelper --exclude=./bench/out -cf - .) | tar -C "$stage" -xf -
rm -f "$out"/toolgate_"$version"_* "$out"/toolgate-dbgsym_"$version"_*

echo "build-deb: dpkg-buildpackage in $stage"
(cd "$stage" && DEB_BUILD_OPTIONS="nocheck parallel=2" nice dpkg-buildpackage -us -uc -b)

deb="$out/toolgate_${version}_${arch}.deb"
[ -f "$deb" ] || { echo "build-deb: $deb was not built" >&2; exit 1; }
rm -rf "$stage"

echo "build-deb: lintian"
lintian --fail-on error,warning --display-info "$out/toolgate_${version}_${arch}.changes"
echo "build-deb: lintian clean"
echo "$deb"

#!/bin/sh
# Build one out-of-tree module against the guest kernel's headers, in a
# copy of its sources (kbuild writes next to them), by a make that does not
# inherit our command line.
# Usage: kmod.sh SRCDIR NAME HEADERS BUILDDIR OUT.ko [V]
set -u
src=$1 name=$2 headers=$3 build=$4 out=$5 verbose=${6:-0}
if [ ! -f "$headers/Makefile" ]; then
	echo "kmod: no kernel headers in $headers (make kernel fetches them; or set GUEST_HEADERS=)" >&2
	exit 1
fi
rm -rf "$build" && mkdir -p "$build" && cp "$src/$name.c" "$src/Kbuild" "$build/" || exit 1
build=$(cd "$build" && pwd)
# One compiler for every kernel: this machine's gcc, whichever gcc-N the
# kernel's Debian build used (sid's 7.2: gcc-16, not in bookworm). So drop
# what only that compiler knew (-fmin-function-alignment: -falign-functions
# stays) and the module BTF step (our modules need none; it would want the
# kernel's pahole).
MAKEFLAGS= make -s -C "$headers" M="$build" V="$verbose" CC=gcc \
	CONFIG_CC_HAS_MIN_FUNCTION_ALIGNMENT= CONFIG_DEBUG_INFO_BTF_MODULES= \
	modules >"$build/build.log" 2>&1 ||
	{ cat "$build/build.log" >&2; exit 1; }
cp "$build/$name.ko" "$out"

#!/bin/sh
# Build a guest kernel from a source tree with the suite's fragment.
# Usage: build-kernel.sh [--config-only] [--extra FRAGMENT] KSRC BUILD [BASE]
#   KSRC   a kernel source tree (e.g. make kernel-source GUEST=6.12)
#   BUILD  the build folder (kbuild's O=): .config, the image, and
#          BUILD/mods/lib/modules/RELEASE after modules_install
#   BASE   the base config target (default x86_64_defconfig: small, and
#          every option the fragment needs can be set on it)
# --config-only stops after the config is merged and checked (make check
# does this on Debian's linux-source). --extra merges a fragment of yours
# after the suite's (it wins where both set an option).
# The fragment (BTF included: DEBUG_INFO for pahole to read, then
# DEBUG_INFO_BTF) is merged with scripts/kconfig/merge_config.sh,
# olddefconfig resolves the dependencies, and kernel-config/check-config.sh must then pass: olddefconfig
# silently drops an option whose dependencies are missing.
# Prints, last, the KERNEL= MODULES= words that make check/reproduce take.
# Exit: 0 built, 1 a step failed (its log is printed), 2 usage.
set -u
config_only=0 extra=
while :; do
	case ${1:-} in
	--config-only) config_only=1; shift ;;
	--extra) [ -f "${2:-}" ] || { echo "build-kernel: --extra ${2:-}: no such file" >&2; exit 2; }
		extra=$(cd "$(dirname "$2")" && pwd)/${2##*/}; shift 2 ;;
	*) break ;;
	esac
done
[ $# -ge 2 ] && [ $# -le 3 ] || { sed -n '3,11s/^# \{0,1\}//p' "$0" >&2; exit 2; }
ksrc=$1 build=$2 base=${3:-x86_64_defconfig}
here=$(cd "$(dirname "$0")" && pwd)
[ -f "$ksrc/Makefile" ] && [ -f "$ksrc/scripts/kconfig/merge_config.sh" ] ||
	{ echo "build-kernel: $ksrc is not a kernel source tree (no Makefile, scripts/kconfig/merge_config.sh)" >&2; exit 2; }
ksrc=$(cd "$ksrc" && pwd)
mkdir -p "$build" && build=$(cd "$build" && pwd) || exit 1
jobs=$(nproc)
log=$build/build.log
: >"$log"

# step NAME CMD...: run CMD into the log, say how long it took, or stop
# with the log's tail.
step() {
	name=$1; shift
	t0=$(date +%s)
	echo "  KBUILD   $name"
	if ! "$@" >>"$log" 2>&1; then
		echo "build-kernel: $name failed (log: $log):" >&2
		tail -n 20 "$log" >&2
		exit 1
	fi
	echo "  KBUILD   $name: $(($(date +%s) - t0)) s"
}
# With ccache (Debian's), every build folder next to BUILD shares one cache:
# a second build folder on the same tree (make patch-check's patched side)
# compiles only what differs. Without hashing the working folder, which
# only the debug info's compile folder would tell apart.
cc=gcc
if command -v ccache >/dev/null; then
	cc="ccache gcc"
	export CCACHE_DIR="${CCACHE_DIR:-$(dirname "$build")/.ccache}" CCACHE_NOHASHDIR=1
	export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-12G}"
fi
kmake() { make -C "$ksrc" O="$build" CC="$cc" "$@"; }

step "$base" kmake "$base"
step "merge kernel-config/mapsync.config" \
	sh "$ksrc/scripts/kconfig/merge_config.sh" -m -O "$build" "$build/.config" "$here/mapsync.config" $extra
step olddefconfig kmake olddefconfig
echo "  KBUILD   check-config $build/.config"
sh "$here/check-config.sh" "$build/.config" || { echo "build-kernel: the merged config lacks what the suite needs" >&2; exit 1; }
[ "$config_only" = 1 ] && exit 0

step "bzImage modules (-j$jobs)" kmake -j"$jobs" bzImage modules
rm -rf "$build/mods"
step modules_install kmake INSTALL_MOD_PATH="$build/mods" modules_install
release=$(kmake -s kernelrelease)
echo "KERNEL=$build/arch/x86/boot/bzImage MODULES=$build/mods/lib/modules/$release"

#!/bin/sh
# Install the Debian packages the suite needs, only those missing: a no-op
# costs one dpkg-query. Usage: deps.sh [--list] [EXTRA_PACKAGE...]
set -eu
# Build: C and BPF toolchain. Guest: QEMU, initramfs tools, the filesystem
# and NVDIMM tools copied into it. jq: the host checks JSON with it. lz4: the
# Debian guest kernel's payload, unpacked for its BTF (bpf/gen-vmlinux-h.sh);
# xz-utils: the modules of Debian's 6.12 and later kernels are .ko.xz. The
# guest kernels' headers are unpacked by vm/fetch-kernel.sh, not installed.
# flex, bison: kconfig, for the fragment merge make check tests on a source tree;
# dwarves: its pahole, without which kconfig cannot turn DEBUG_INFO_BTF on
# (PAHOLE_VERSION 0; gcc 12's DWARF 5 needs pahole 1.21+), so the fragment
# merge and any kernel of your own would lose BTF.
# gnuplot-nox: the plots of gate runs, gates and reports (results/plot.sh).
# python3-jsonschema: its jsonschema command checks make kcidb's documents
# against results/kcidb-v5.schema.json (tests/unit/test-kcidb.sh).
# libpmemobj-dev, pmdk-tools, libbpf-tools: the clients job (issue 32): our
# libpmemobj workload is linked against Debian's PMDK, and pmempool and
# funclatency go into the initramfs with PMDK's shared libraries.
# prometheus: its promtool checks daxlat --openmetrics's exposition
# (tests/unit/test_metrics.c), as a Prometheus scrape would parse it.
# fio, libpmem1-debug: the clients job runs Debian's fio (its libpmem and
# mmap engines) from the job's own archive (vm/mkarchive.sh), with PMDK's
# debug libpmem, whose log names what PMDK chose (MAP_SYNC, flush).
PACKAGES="gcc make libc6-dev clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev
qemu-system-x86 busybox-static cpio kmod e2fsprogs xfsprogs ndctl jq lz4 xz-utils flex bison dwarves
gnuplot-nox python3-jsonschema libpmemobj-dev pmdk-tools libbpf-tools fio libpmem1-debug prometheus"

if [ "${1:-}" = --list ]; then shift; echo $PACKAGES "$@"; exit 0; fi
PACKAGES="$PACKAGES $*"
missing=
for p in $PACKAGES; do
	case $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) in
	"install ok installed") ;;
	*) missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing (run 'make deps' as root)" >&2
	exit 1
fi
echo "  DEPS     installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get -q update >/dev/null
# shellcheck disable=SC2086
apt-get -q install -y --no-install-recommends $missing >/dev/null

#!/bin/sh
# Install the Debian packages the suite needs, only those missing: a no-op
# costs one dpkg-query. Usage: deps.sh [--list]
set -eu
# Build: C and BPF toolchain. Guest: QEMU, initramfs tools, the filesystem
# and NVDIMM tools copied into it. jq: the host checks JSON with it.
PACKAGES="gcc make libc6-dev clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev
qemu-system-x86 busybox-static cpio kmod e2fsprogs xfsprogs ndctl jq"

if [ "${1:-}" = --list ]; then echo $PACKAGES; exit 0; fi
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

#!/bin/sh
# How a run was obtained, as key=value lines: every results folder and
# summary carries this one label (bench/run-lib.sh's meta.txt, the crash
# test's summary.json). git_revision gets "-dirty" when tracked files differ.
# Environment: VMLINUZ, ACCEL, TCG_THREAD, ICOUNT, QEMU, GUEST_KVER, KOUT (from the
# Makefile); TARGET (native mode).
here=$(cd "$(dirname "$0")" && pwd)
top=${here%/vm}
rev=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -z "$(git -C "$top" status --porcelain --untracked-files=no 2>/dev/null)" ] || rev="$rev-dirty"
accel=${ACCEL:-tcg}
# Native mode (TARGET=DIR): this machine's kernel, no VM.
if [ -n "${TARGET:-}" ]; then
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "git_revision=$rev"
	echo "kernel=$(uname -r)"
	echo "accelerator=native"
	echo "native_target=$TARGET"
	echo "host_cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
	exit 0
fi
if [ "$accel" = tcg ] && [ -n "${ICOUNT:-}" ]; then
	accel="$accel,thread=single,icount=$ICOUNT"
elif [ "$accel" = tcg ]; then
	accel="$accel,thread=${TCG_THREAD:-multi}"
fi
echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "git_revision=$rev"
echo "kernel=${GUEST_KVER:-$(basename "${VMLINUZ:-unknown}")}"
# The exact Debian package (vm/fetch-kernel.sh's record), if it is one.
pkg=$(cut -d' ' -f3 "${KOUT:-/nonexistent}/.complete" 2>/dev/null)
[ -z "$pkg" ] || echo "kernel_package=$pkg"
echo "accelerator=$accel"
echo "host_cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
echo "qemu=$("${QEMU:-qemu-system-x86_64}" --version 2>/dev/null | head -n 1)"

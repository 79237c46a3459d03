# The pinned default guest kernel: make variables only, no rules.
# Included by the top-level Makefile; vm/fetch-kernel.sh downloads
# $(GUEST_KERNEL_PKG)=$(GUEST_KERNEL_DEB_VERSION) from the Debian archive.
#
# Why this kernel: Debian 12's cloud flavour of 6.1 passes
# kernel-config/check-config.sh with nothing missing:
#   - FS_DAX=y and FS_DAX_PMD=y (MAP_SYNC on ext4/xfs -o dax), ext4 and jbd2
#     built in;
#   - xfs, libnvdimm, nd_pmem, nfit, nd_e820, dm-log-writes, dm-flakey,
#     virtio_pci and virtio_console as modules (the initramfs loads them);
#   - BTF for vmlinux and for modules (DEBUG_INFO_BTF, DEBUG_INFO_BTF_MODULES),
#     BPF_EVENTS, KPROBES, fentry trampolines (DYNAMIC_FTRACE_WITH_DIRECT_CALLS);
#   - MAGIC_SYSRQ for the crash tests;
#   - module signing is not enforced (MODULE_SIG_FORCE unset), so a locally
#     built module loads next to Debian's signed ones;
#   - the .deb is 26 MB and boots under TCG in about 5 s.
# The ABI (-57) and the package version were what 'apt-cache policy' showed
# for bookworm-security on 2026-12; Debian drops old ABIs from the archive, so
# when the download fails bump all four together (the package name carries
# the ABI) and re-run 'sh kernel-config/check-config.sh' on the new config.
#
# Your own kernel instead (built with kernel-config/mapsync.config, see
# kernel-config/README.md):
#   make <target> KERNEL=path/to/arch/x86/boot/bzImage MODULES=path/to/lib/modules/VERSION
# KERNEL is the image QEMU boots; MODULES is the modules tree (with
# modules.dep: run 'make modules_install INSTALL_MOD_PATH=DIR' then
# MODULES=DIR/lib/modules/VERSION). Check that kernel first:
#   sh kernel-config/check-config.sh path/to/linux/.config
GUEST_KERNEL_VERSION := 6.1.0-57-cloud-amd64
GUEST_KERNEL_PKG := linux-image-6.1.0-57-cloud-amd64
GUEST_KERNEL_DEB_VERSION := 6.1.192-3
GUEST_HEADERS_PKG := linux-headers-6.1.0-57-cloud-amd64

# The guest kernels: make variables only, no rules. Included by the
# top-level Makefile. The kernels are the rows of kernel-config/kernels.txt
# (why those three, and why Debian's cloud flavour: kernel-config/README.md);
# GUEST=NAME picks one, the first row by default.
#
# Your own kernel instead (built with kernel-config/mapsync.config, see
# kernel-config/README.md):
#   make <target> KERNEL=path/to/arch/x86/boot/bzImage MODULES=path/to/lib/modules/VERSION
# KERNEL is the image QEMU boots; MODULES is the modules tree (with
# modules.dep: run 'make modules_install INSTALL_MOD_PATH=DIR' then
# MODULES=DIR/lib/modules/VERSION). Check that kernel first:
#   sh kernel-config/check-config.sh path/to/linux/.config
KERNELS := $(shell awk 'substr($$0, 1, 1) != "\043" && NF {print $$1}' kernel-config/kernels.txt)
DEFAULT_GUEST := $(firstword $(KERNELS))
GUEST ?= $(DEFAULT_GUEST)
ifeq ($(filter $(GUEST),$(KERNELS)),)
$(error GUEST=$(GUEST): not a kernel of kernel-config/kernels.txt (one of: $(KERNELS)))
endif

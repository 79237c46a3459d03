# daxlat, the libbpf CO-RE tool, and what every libbpf tool shares: make
# fragment included by the top-level Makefile. Uses O, Q, msg, CC, CFLAGS,
# LIB_OBJS, LIB_HDRS, VMLINUZ and GUEST_STAMP, so include it after those
# are set.
# Produces $(DAXLAT) = $(O)/bin/daxlat (static), with vmlinux.h, the BPF
# object and its skeleton under $(O)/bpf/; for the other libbpf tools
# (validate/validate.mk) $(TRACE_HELPERS_OBJ), the user-space helpers, to
# link with $(BPF_LDLIBS), their header in $(TRACE_HELPERS_HDRS), and the
# BPF side's header in $(BPF_COMMON_HDRS) (compile with -Ibpf); and the
# unit test $(O)/tests/test_trace_helpers.
#   VMLINUX_BTF=file   build against that BTF/ELF/bzImage instead of the
#                      guest kernel's (see bpf/gen-vmlinux-h.sh)
#   BPF_CLANG, BPFTOOL override the tools.

# Rules below must not become the default goal if this file is included
# before 'all': remember the goal and put it back at the end.
daxlat_saved_goal := $(.DEFAULT_GOAL)

BPF_CLANG ?= clang
BPFTOOL ?= bpftool
BPF_ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' \
	-e 's/ppc64le/powerpc/' -e 's/riscv64/riscv/' -e 's/s390x/s390/')
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -Wall -Werror
BPF_LDLIBS := -lbpf -lelf -lz

# Shared by the libbpf tools: user space (links libbpf, so not in lib/:
# faultlat links lib/) and the BPF side.
TRACE_HELPERS_OBJ := $(O)/bpf/trace_helpers.o
TRACE_HELPERS_HDRS := bpf/trace_helpers.h
BPF_COMMON_HDRS := bpf/common.bpf.h

DAXLAT := $(O)/bin/daxlat
DAXLAT_OBJS := $(O)/bpf/daxlat.o $(O)/bpf/daxlat_util.o $(TRACE_HELPERS_OBJ)
# vmlinux.h follows the guest kernel (fetched first if need be: the build is
# then the same on every machine) or VMLINUX_BTF. The stamp, not the vmlinuz,
# carries the date: the vmlinuz keeps the .deb's.
DAXLAT_BTF_SRC := $(if $(VMLINUX_BTF),$(VMLINUX_BTF),$(GUEST_STAMP))

$(O)/bpf:
	$(Q)mkdir -p $@

$(O)/bpf/vmlinux.h: bpf/gen-vmlinux-h.sh $(DAXLAT_BTF_SRC) | $(O)/bpf
	$(call msg,GEN,$@)
	$(Q)BPFTOOL=$(BPFTOOL) V=$(V) sh bpf/gen-vmlinux-h.sh $@ $(VMLINUZ)

# 'bpftool gen object' drops the DWARF the skeleton would otherwise embed.
$(O)/bpf/daxlat.bpf.o: bpf/daxlat.bpf.c bpf/daxlat.h $(BPF_COMMON_HDRS) $(O)/bpf/vmlinux.h | $(O)/bpf
	$(call msg,BPF,$@)
	$(Q)$(BPF_CLANG) $(BPF_CFLAGS) -I$(O)/bpf -Ibpf -c $< -o $(@:.o=.tmp.o) && \
	$(BPFTOOL) gen object $@ $(@:.o=.tmp.o) && rm -f $(@:.o=.tmp.o)

$(O)/bpf/daxlat.skel.h: $(O)/bpf/daxlat.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name daxlat_bpf > $@

$(O)/bpf/daxlat.o: bpf/daxlat.c $(O)/bpf/daxlat.skel.h bpf/daxlat.h bpf/daxlat_util.h \
		$(TRACE_HELPERS_HDRS) $(LIB_HDRS) | $(O)/bpf
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -I$(O)/bpf -Ibpf -c $< -o $@

$(O)/bpf/daxlat_util.o: bpf/daxlat_util.c bpf/daxlat_util.h bpf/daxlat.h | $(O)/bpf
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Ibpf -c $< -o $@

$(TRACE_HELPERS_OBJ): bpf/trace_helpers.c $(TRACE_HELPERS_HDRS) | $(O)/bpf
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Ibpf -c $< -o $@

$(DAXLAT): $(DAXLAT_OBJS) $(LIB_OBJS) | $(O)/bin
	$(call msg,CCLD,$@)
	$(Q)$(CC) $(CFLAGS) -static $(DAXLAT_OBJS) $(LIB_OBJS) $(BPF_LDLIBS) -o $@

# tests/unit/test_daxlat_util.c compiles bpf/daxlat_util.c in (#include), so
# the generic tests/unit rule builds it; only tell make what it reads.
$(O)/tests/test_daxlat_util: bpf/daxlat_util.c bpf/daxlat_util.h bpf/daxlat.h

# The helpers' unit test links their object (and so libbpf): this rule wins
# over the generic tests/unit one.
$(O)/tests/test_trace_helpers: tests/unit/test_trace_helpers.c $(TRACE_HELPERS_OBJ) \
		$(TRACE_HELPERS_HDRS) tests/unit/ktap.h | $(O)/tests
	$(call msg,CCLD,$@)
	$(Q)$(CC) $(CFLAGS) -Ibpf $< $(TRACE_HELPERS_OBJ) $(BPF_LDLIBS) -o $@

.DEFAULT_GOAL := $(daxlat_saved_goal)

# daxlat, the libbpf CO-RE tool, and what every libbpf tool shares: make
# fragment included by the top-level Makefile. Uses O, Q, msg, CC, CFLAGS,
# LIB_OBJS, LIB_HDRS, BTF_KERNEL and BTF_STAMP, so include it after those
# are set.
# Produces $(DAXLAT) = $(O)/bin/daxlat (static), with vmlinux.h, the BPF
# object and its skeleton under $(O)/bpf/; for every libbpf tool
# (validate/validate.mk too) the probe layer of bpf/probe/: $(PROBE_OBJS)
# to link with $(BPF_LDLIBS), $(PROBE_HDRS), the BPF side's headers
# $(BPF_COMMON_HDRS) (compile with -Ibpf/probe), and $(KINDS_OBJ), the
# fault classes' names without libbpf; and the unit tests
# $(O)/tests/test_trace_helpers and $(O)/tests/test_probe.
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
# 7.2 embeds named structs as anonymous members (mm/slab.h: "struct
# freelist_counters;"), which bpftool dumps as such into vmlinux.h: built
# from an own 7.2 kernel's BTF it did not compile without these (the
# kernel's own BPF builds, tools/sched_ext, pass -fms-extensions too).
BPF_CFLAGS += -fms-extensions -Wno-microsoft-anon-tag
BPF_LDLIBS := -lbpf -lelf -lz

# The probe layer, shared by the libbpf tools: user space (links libbpf,
# so not in lib/: faultlat links lib/) and the BPF side.
KINDS_OBJ := $(O)/bpf/probe/kinds.o
PROBE_OBJS := $(patsubst bpf/probe/%.c,$(O)/bpf/probe/%.o,$(wildcard bpf/probe/*.c))
PROBE_HDRS := bpf/probe/probe.h bpf/probe/trace_helpers.h bpf/probe/kinds.h
BPF_COMMON_HDRS := bpf/probe/common.bpf.h bpf/probe/kinds.h bpf/probe/xfs.bpf.h

DAXLAT := $(O)/bin/daxlat
DAXLAT_OBJS := $(O)/bpf/daxlat.o $(O)/bpf/daxlat_util.o $(O)/bpf/breakdown.o $(O)/bpf/metrics.o $(PROBE_OBJS)
# vmlinux.h follows the default guest kernel, whatever GUEST is (fetched
# first if need be: the build is then the same on every machine and for
# every kernel), or VMLINUX_BTF. The stamp, not the vmlinuz, carries the
# date: the vmlinuz keeps the .deb's.
DAXLAT_BTF_SRC := $(if $(VMLINUX_BTF),$(VMLINUX_BTF),$(BTF_STAMP))

$(O)/bpf $(O)/bpf/probe:
	$(Q)mkdir -p $@

$(O)/bpf/vmlinux.h: bpf/gen-vmlinux-h.sh $(DAXLAT_BTF_SRC) | $(O)/bpf
	$(call msg,GEN,$@)
	$(Q)BPFTOOL=$(BPFTOOL) V=$(V) sh bpf/gen-vmlinux-h.sh $@ $(BTF_KERNEL)

# daxlat and daxlat-costly share these rules: each build's BPF object,
# skeleton and user-space object in its own folder (%), the costly one
# with its DAXLAT_BPF_DEFS (below). 'bpftool gen object' drops the DWARF
# the skeleton would otherwise embed.
DAXLAT_BUILDS := $(O)/bpf $(O)/bpf/costly
$(addsuffix /daxlat.bpf.o,$(DAXLAT_BUILDS)): %/daxlat.bpf.o: bpf/daxlat.bpf.c bpf/daxlat.h \
		$(BPF_COMMON_HDRS) $(O)/bpf/vmlinux.h | %
	$(call msg,BPF,$@)
	$(Q)$(BPF_CLANG) $(BPF_CFLAGS) $(DAXLAT_BPF_DEFS) -I$(O)/bpf -Ibpf -Ibpf/probe -c $< -o $(@:.o=.tmp.o) && \
	$(BPFTOOL) gen object $@ $(@:.o=.tmp.o) && rm -f $(@:.o=.tmp.o)

$(addsuffix /daxlat.skel.h,$(DAXLAT_BUILDS)): %/daxlat.skel.h: %/daxlat.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name daxlat_bpf > $@

$(addsuffix /daxlat.o,$(DAXLAT_BUILDS)): %/daxlat.o: bpf/daxlat.c %/daxlat.skel.h bpf/daxlat.h \
		bpf/daxlat_util.h bpf/breakdown.h bpf/metrics.h $(PROBE_HDRS) $(LIB_HDRS) | %
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -I$* -Ibpf -Ibpf/probe -c $< -o $@

$(O)/bpf/daxlat_util.o: bpf/daxlat_util.c bpf/daxlat_util.h bpf/daxlat.h | $(O)/bpf
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Ibpf -Ibpf/probe -c $< -o $@

$(O)/bpf/breakdown.o: bpf/breakdown.c bpf/breakdown.h bpf/daxlat.h $(LIB_HDRS) | $(O)/bpf
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Ibpf -Ibpf/probe -c $< -o $@

$(O)/bpf/metrics.o: bpf/metrics.c bpf/metrics.h bpf/breakdown.h bpf/daxlat.h | $(O)/bpf
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Ibpf -Ibpf/probe -c $< -o $@

$(O)/bpf/probe/%.o: bpf/probe/%.c $(PROBE_HDRS) $(LIB_HDRS) | $(O)/bpf/probe
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Ibpf/probe -c $< -o $@

$(DAXLAT): $(DAXLAT_OBJS) $(LIB_OBJS) | $(O)/bin
	$(call msg,CCLD,$@)
	$(Q)$(CC) $(CFLAGS) -static $(DAXLAT_OBJS) $(LIB_OBJS) $(BPF_LDLIBS) -o $@

# $(DAXLAT_COSTLY): daxlat whose every BPF program first spins
# HOOK_COST_LOOPS (common.bpf.h): the injected tool cost the regression
# gate's daxlat row must call worse (tests/host/gate-check.sh). Built by
# make all (test-tool-paths checks every binary); the same user space, its
# own object and skeleton.
DAXLAT_COSTLY := $(O)/bin/daxlat-costly
DAXLAT_COST_LOOPS ?= 100

$(O)/bpf/costly:
	$(Q)mkdir -p $@

$(O)/bpf/costly/daxlat.bpf.o: DAXLAT_BPF_DEFS := -DHOOK_COST_LOOPS=$(DAXLAT_COST_LOOPS)

$(DAXLAT_COSTLY): $(O)/bpf/costly/daxlat.o $(filter-out $(O)/bpf/daxlat.o,$(DAXLAT_OBJS)) $(LIB_OBJS) | $(O)/bin
	$(call msg,CCLD,$@)
	$(Q)$(CC) $(CFLAGS) -static $^ $(BPF_LDLIBS) -o $@

# tests/unit/test_daxlat_util.c compiles bpf/daxlat_util.c in (#include), so
# the generic tests/unit rule builds it; only tell make what it reads.
$(O)/tests/test_daxlat_util: bpf/daxlat_util.c bpf/daxlat_util.h bpf/daxlat.h
$(O)/tests/test_daxlat_util: CFLAGS += -Ibpf/probe

# tests/unit/test_breakdown.c compiles bpf/breakdown.c and the kinds in.
$(O)/tests/test_breakdown: bpf/breakdown.c bpf/breakdown.h bpf/daxlat.h bpf/probe/kinds.c
$(O)/tests/test_breakdown: CFLAGS += -Ibpf -Ibpf/probe

$(O)/tests/test_metrics: bpf/metrics.c bpf/metrics.h bpf/breakdown.c bpf/breakdown.h bpf/daxlat.h bpf/probe/kinds.c
$(O)/tests/test_metrics: CFLAGS += -Ibpf -Ibpf/probe

# The probe layer's unit tests link it (and so libbpf): these rules win over
# the generic tests/unit one. test_probe also opens the tools' BPF objects.
$(O)/tests/test_trace_helpers: tests/unit/test_trace_helpers.c $(PROBE_OBJS) \
		$(PROBE_HDRS) tests/unit/ktap.h $(LIB_OBJS) | $(O)/tests
	$(call msg,CCLD,$@)
	$(Q)$(CC) $(CFLAGS) -Ibpf/probe $< $(PROBE_OBJS) $(LIB_OBJS) $(BPF_LDLIBS) -o $@

$(O)/tests/test_probe: tests/unit/test_probe.c $(PROBE_OBJS) $(PROBE_HDRS) bpf/daxlat_probes.h \
		validate/syncorder_probes.h tests/unit/ktap.h $(LIB_OBJS) \
		$(O)/bpf/daxlat.bpf.o $(O)/validate/syncorder.bpf.o | $(O)/tests
	$(call msg,CCLD,$@)
	$(Q)$(CC) $(CFLAGS) -Ibpf/probe -DDAXLAT_BPF_OBJ='"$(O)/bpf/daxlat.bpf.o"' \
		-DSYNCORDER_BPF_OBJ='"$(O)/validate/syncorder.bpf.o"' $< $(PROBE_OBJS) $(LIB_OBJS) \
		$(BPF_LDLIBS) -o $@

.DEFAULT_GOAL := $(daxlat_saved_goal)

# validate/: the MAP_SYNC ordering checker (syncorder) and the kernel module
# that injects ordering bugs to prove it can fail. Make fragment included by
# the top-level Makefile after bpf/bpf.mk. Uses O, Q, msg, CC, CFLAGS,
# LIB_OBJS, LIB_HDRS, BPF_CLANG, BPFTOOL, BPF_CFLAGS, BPF_LDLIBS,
# $(O)/bpf/vmlinux.h, the probe layer's PROBE_OBJS, PROBE_HDRS, KINDS_OBJ and
# BPF_COMMON_HDRS (bpf/bpf.mk) and the guest kernel's KOUT, GUEST_HEADERS
# and GUEST_STAMP (the top-level Makefile).
# Produces:
#   $(O)/bin/syncorder               static, runs in the guest
#   $(O)/bin/syncstress              static, same-inode concurrency workload
#   $(O)/bin/mapconform              static, one probe of the MAP_SYNC interface
#   $(KOUT)/mutants/mapsync_mutant.ko  built against the guest kernel's headers
#   $(O)/tests/test_syncorder        host unit test of the state machine
# and the targets check-syncorder (the guest job tests/guest/syncorder.sh)
# and check-conformance (tests/guest/conformance.sh: the interface matrix).
#   GUEST_HEADERS=dir   kernel headers/build tree for the module (default:
#                       the guest kernel's, unpacked by vm/fetch-kernel.sh)

# Rules below must not become the default goal: put it back at the end.
validate_saved_goal := $(.DEFAULT_GOAL)

SYNCORDER := $(O)/bin/syncorder
SYNCSTRESS := $(O)/bin/syncstress
MAPCONFORM := $(O)/bin/mapconform
MUTANT_KO := $(KOUT)/mutants/mapsync_mutant.ko
SYNCORDER_OBJS := $(O)/validate/syncorder.o $(O)/validate/syncorder_check.o $(PROBE_OBJS)
SYNCORDER_HDRS := validate/syncorder.h validate/syncorder_check.h

all: $(SYNCORDER) $(SYNCSTRESS) $(MAPCONFORM) $(MUTANT_KO)

$(O)/validate:
	$(Q)mkdir -p $@

$(O)/validate/syncorder.bpf.o: validate/syncorder.bpf.c validate/syncorder.h $(BPF_COMMON_HDRS) \
		$(O)/bpf/vmlinux.h | $(O)/validate
	$(call msg,BPF,$@)
	$(Q)$(BPF_CLANG) $(BPF_CFLAGS) -I$(O)/bpf -Ivalidate -Ibpf/probe -c $< -o $@

$(O)/validate/syncorder.skel.h: $(O)/validate/syncorder.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name syncorder_bpf > $@

$(O)/validate/syncorder.o: validate/syncorder.c $(O)/validate/syncorder.skel.h $(SYNCORDER_HDRS) \
		$(PROBE_HDRS) $(LIB_HDRS) | $(O)/validate
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -I$(O)/validate -Ivalidate -Ibpf/probe -c $< -o $@

$(O)/validate/syncorder_check.o: validate/syncorder_check.c $(SYNCORDER_HDRS) bpf/probe/kinds.h | $(O)/validate
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Ivalidate -Ibpf/probe -c $< -o $@

$(SYNCORDER): $(SYNCORDER_OBJS) $(LIB_OBJS) | $(O)/bin
	$(call msg,CCLD,$@)
	$(Q)$(CC) $(CFLAGS) -static $(SYNCORDER_OBJS) $(LIB_OBJS) $(BPF_LDLIBS) -o $@

# The same-inode concurrency workload of the guest job. With the lib
# objects: its file goes through lib/cli and lib/daxfile like faultlat's.
$(SYNCSTRESS): validate/syncstress.c $(LIB_OBJS) $(LIB_HDRS) | $(O)/bin
	$(call msg,CCLD,$@)
	$(Q)$(CC) $(CFLAGS) -static -pthread $< $(LIB_OBJS) -o $@

# The interface conformance matrix's probe (tests/guest/conformance.sh).
$(MAPCONFORM): validate/mapconform.c $(LIB_OBJS) $(LIB_HDRS) | $(O)/bin
	$(call msg,CCLD,$@)
	$(Q)$(CC) $(CFLAGS) -static $< $(LIB_OBJS) -o $@

# The state machine's unit test links syncorder_check.o (and the fault
# classes' names, no libbpf): this rule wins over the generic tests/unit one.
$(O)/tests/test_syncorder: tests/unit/test_syncorder.c $(O)/validate/syncorder_check.o $(KINDS_OBJ) \
		$(SYNCORDER_HDRS) tests/unit/ktap.h $(LIB_OBJS) | $(O)/tests
	$(call msg,CCLD,$@)
	$(Q)$(CC) $(CFLAGS) -Ivalidate -Ibpf/probe $< $(O)/validate/syncorder_check.o $(KINDS_OBJ) $(LIB_OBJS) -o $@

# Built by mk/kmod.sh against the guest kernel's headers.
$(MUTANT_KO): validate/mutants/mapsync_mutant.c validate/mutants/Kbuild mk/kmod.sh $(GUEST_STAMP) | $(KOUT)/mutants
	$(call msg,KMOD,$@)
	$(Q)sh mk/kmod.sh validate/mutants mapsync_mutant $(GUEST_HEADERS) $(KOUT)/mutants/build $@ \
		$(if $(filter 1,$(V)),1,0)

# The guest job: the checker on clean runs of every scenario, then with each
# mutant loaded. One boot, one KTAP document in $(CHECK)/guest-syncorder.tap.
.PHONY: check-syncorder
check-syncorder: $(SYNCORDER) $(SYNCSTRESS) $(MUTANT_KO) $(O)/bin/faultlat $(INITRD) $(QEMU_STAMP) | $(CHECK)
	@echo '  TEST     syncorder guest job (QEMU $(ACCEL), kernel $(GUEST_KVER))'
	$(Q)$(VM_ENV) O=$(O) sh tests/host/guest.sh syncorder

.DEFAULT_GOAL := $(validate_saved_goal)

# The checker with one rule switched off, per row of the rules table: each
# must fail the unit cases the table names (tests/unit/test-checker-rules.sh).
# -O0: two dozen builds of it, run once each.
CHECKER_RULES := $(shell awk '!/^#/ && NF { print $$1 }' tests/unit/data/checker-rules.txt)
CHECKER_VARIANTS := $(CHECKER_RULES:%=$(O)/tests/checker-rules/test_syncorder-%)
all: $(CHECKER_VARIANTS)

$(O)/tests/checker-rules:
	$(Q)mkdir -p $@

$(O)/tests/checker-rules/test_syncorder-%: tests/unit/test_syncorder.c validate/syncorder_check.c $(KINDS_OBJ) \
		$(SYNCORDER_HDRS) tests/unit/ktap.h $(LIB_OBJS) tests/unit/data/checker-rules.txt | $(O)/tests/checker-rules
	$(call msg,CCLD,$@)
	$(Q)$(CC) $(CFLAGS) -O0 -DSC_RULE_OFF=SC_R_$* -Ivalidate -Ibpf/probe $< validate/syncorder_check.c $(KINDS_OBJ) \
		$(LIB_OBJS) -o $@

# The interface conformance matrix (tests/guest/conformance.sh): one boot,
# $(CHECK)/guest-conformance.tap.
.PHONY: check-conformance
check-conformance: $(SYNCORDER) $(MAPCONFORM) $(INITRD) $(QEMU_STAMP) | $(CHECK)
	@echo '  TEST     MAP_SYNC interface conformance matrix (QEMU $(ACCEL), kernel $(GUEST_KVER))'
	$(Q)$(VM_ENV) O=$(O) sh tests/host/guest.sh conformance

# make finding-repro [FINDING=ID] [REPRO_N=8]: the finding's standalone
# reproducer (validate/findings/ID: repro.c, repro.sh; no BPF, no suite tool
# in the guest) through REPRO_N crash and verify boots of the guest kernel
# (KERNEL= MODULES= for your own): validate/findings/README.md.
FINDING ?= xfs-cow-entry-before-remap
REPRO_N ?= 8
REPRO_BIN := $(O)/findings/repro-$(FINDING)
$(REPRO_BIN): validate/findings/$(FINDING)/repro.c
	$(call msg,CCLD,$@)
	$(Q)mkdir -p $(dir $@) && $(CC) -O2 -Wall -Werror -static $< -o $@
.PHONY: finding-repro
finding-repro: $(REPRO_BIN) $(INITRD) $(QEMU_STAMP)
	$(Q)$(VM_ENV) REPRO_BIN=$(REPRO_BIN) sh validate/findings/vm-repro.sh $(FINDING) $(REPRO_N) \
		results/runs/repro-$(FINDING)-$(GUEST_KVER)-$(shell date -u +%Y%m%dT%H%M%SZ)

# MAP_SYNC test bench. 'make help' lists the targets.
.DELETE_ON_ERROR:
.SECONDARY:
.SUFFIXES:
SHELL := /bin/sh

O ?= .output
V ?= 0
ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

include kernel-config/guest-kernel.mk

# The guest kernel: a row of kernel-config/kernels.txt, or your own build
# with KERNEL=bzImage MODULES=DIR/lib/modules/VERSION [KCONFIG=.config]
# (kernel-config/README.md). KOUT holds what depends on the kernel (the
# unpacked packages, the initramfs, the modules built against it);
# GUEST_MODROOT holds lib/modules/VERSION.
ifdef KERNEL
# A kernel that is not there is one line now, not a failure after a boot.
ifeq ($(wildcard $(KERNEL)),)
$(error KERNEL=$(KERNEL): no such kernel image)
endif
ifeq ($(wildcard $(MODULES)/modules.dep $(MODULES)/modules.order),)
$(error KERNEL=$(KERNEL) needs MODULES=DIR/lib/modules/VERSION with its modules (MODULES='$(MODULES)'))
endif
KOUT := $(O)/kernels/own-$(notdir $(MODULES))
VMLINUZ := $(KERNEL)
GUEST_KVER := $(notdir $(MODULES))
GUEST_MODROOT := $(patsubst %/lib/modules/$(GUEST_KVER),%,$(MODULES))
KCONFIG ?= $(MODULES)/build/.config
GUEST_HEADERS ?= $(MODULES)/build
GUEST_STAMP := $(KERNEL)
else
KOUT := $(O)/kernels/$(GUEST)
VMLINUZ := $(KOUT)/vmlinuz
# The exact version is known once fetched (the pinned one may be gone):
# expanded in recipes, which run after the fetch.
GUEST_KVER = $(shell cat $(KOUT)/kver 2>/dev/null)
GUEST_MODROOT := $(KOUT)
KCONFIG := $(KOUT)/config
GUEST_HEADERS ?= $(KOUT)/headers
GUEST_STAMP := $(KOUT)/.complete
endif
# The BPF programs are compiled once, against the default kernel's BTF (or
# your own kernel's), and run unchanged on every guest kernel (CO-RE).
BTF_KERNEL := $(if $(KERNEL),$(KERNEL),$(O)/kernels/$(DEFAULT_GUEST)/vmlinuz)
BTF_STAMP := $(if $(KERNEL),$(KERNEL),$(O)/kernels/$(DEFAULT_GUEST)/.complete)
INITRD := $(KOUT)/initramfs.cpio.gz
# The clients job's own archive (fio): see check-clients.
FIO_ARCHIVE := $(KOUT)/fio.cpio.gz
# Where make check's KTAP goes; make check-kernels gives each kernel its own.
CHECK ?= $(O)/check
ACCEL ?= tcg
# QEMU: bookworm's 7.2 under multi-threaded TCG runs stale code after the
# kernel patches an instruction another vCPU executes (every BPF attach), and
# the guest locks up; bookworm-backports' 10.0 does not (vm/README.md, "What runs
# where"). QEMU_SUITE=bookworm uses the installed qemu-system-x86_64.
QEMU_SUITE ?= bookworm-backports
TCG_THREAD ?= multi
ifeq ($(QEMU_SUITE),bookworm)
QEMU := qemu-system-x86_64
QEMU_STAMP :=
else
QEMU := $(abspath $(O))/qemu-$(QEMU_SUITE)/root/usr/bin/qemu-system-x86_64
QEMU_STAMP := $(O)/qemu-$(QEMU_SUITE)/.complete
endif

PAGES ?= 512
REPS ?= 1
KERNEL_VIEW ?= 1
# make reproduce's extra tables (persist cost, concurrency tail, conformance).
EXTRA ?= 1
PERSIST_WRITES ?= 1000
ROUNDS ?= 10
# Empty: the overhead set of bench/scenarios.txt.
OVERHEAD_SCENARIOS ?=
# Rounds run first and left out of make overhead's medians (shown per round).
OVERHEAD_WARMUP ?= 2

CC := gcc
CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Werror -Ilib -D_GNU_SOURCE
# Guest binaries run from a busybox initramfs: link them statically.
STATIC := -static

LIB_OBJS := $(patsubst lib/%.c,$(O)/lib/%.o,$(wildcard lib/*.c))
LIB_HDRS := $(wildcard lib/*.h)
BENCH_BINS := $(patsubst bench/%.c,$(O)/bin/%,$(wildcard bench/*.c))
UNIT_BINS := $(patsubst tests/unit/%.c,$(O)/tests/%,$(wildcard tests/unit/test_*.c))
UNIT_SH := $(wildcard tests/unit/test-*.sh)
# Every KTAP file make check must produce: a part that leaves none fails.
# KERNEL_TAPS: what depends on the guest kernel, its config checked first.
HOST_TAPS = $(patsubst $(O)/tests/%,$(CHECK)/unit-%.tap,$(UNIT_BINS)) \
	$(patsubst tests/unit/%.sh,$(CHECK)/unit-%.tap,$(UNIT_SH))
KERNEL_CHECKS := check-kconfig check-runner check-guest check-bpf check-syncorder check-conformance check-persist \
	check-clients check-native-mode crash-check
KERNEL_TAPS = $(CHECK)/guest-kernel-config.tap $(CHECK)/guest-check.tap $(CHECK)/guest-bpf.tap $(CHECK)/bpf-files.tap \
	$(CHECK)/guest-syncorder.tap $(CHECK)/guest-conformance.tap $(CHECK)/guest-persist.tap $(CHECK)/guest-clients.tap $(CHECK)/guest-native.tap \
	$(CHECK)/crash.tap $(CHECK)/runner.tap

.PHONY: all deps kernel initramfs check check-host check-guest reproduce clean help
all: $(BENCH_BINS) $(UNIT_BINS)

# Each part brings its own rules; they add to 'all' and to the checks.
include bpf/bpf.mk
include validate/validate.mk
include validate/clients/clients.mk
include validate/crash/crash.mk
include native/native.mk
all: $(DAXLAT) $(DAXLAT_COSTLY) $(CRASH_BINS)

help:
	@echo 'make            build the benchmark, tools and unit tests into $(O)/'
	@echo 'make deps       install the missing Debian packages (root)'
	@echo 'make check      host unit tests, guest kernel config check, guest tests in QEMU'
	@echo 'make check TARGET=/mnt/pmem; make reproduce TARGET=/mnt/pmem   natively on a DAX filesystem, no VM'
	@echo 'make kcidb RUN=.output/check    the results as one KCIDB v5 document; make lava-check: the LAVA job under lava-run'
	@echo 'make reproduce  the cover letter'\''s six latency tables, in the guest, next to the seed'\''s;'
	@echo '                then persist cost, the tail under concurrent writers, the MAP_SYNC conformance matrix (EXTRA=0: not)'
	@echo 'make check-kernels      the guest half of make check on every kernel of kernel-config/kernels.txt'
	@echo 'make reproduce-kernels  the reproduce scenarios on every kernel, interleaved; one cross-kernel table'
	@echo 'make kernel-source GUEST=6.12; make kernel KSRC=.output/src/6.12/linux-source-6.12   build your own'
	@echo 'make patch-check KSRC=DIR PATCH=FILE   base against base+patch: both built, the guest jobs and the gate on both, one report'
	@echo 'make bisect KSRC=GIT_TREE GOOD=REV BAD=REV [TEST=gate|check|syncorder|crash]   the first bad commit'
	@echo 'make gate-run; make baseline; make gate BASE=RUN NEW=RUN   the regression gate (gate-aa, gate-power, gate-kernels: its studies)'
	@echo 'make figures    the docs'"'"' result tables, rendered again from their recorded runs (results/figures.txt)'
	@echo 'make clean      remove $(O)/'
	@echo 'Variables: V=1 (verbose), GUEST=NAME (guest kernel, one of: $(KERNELS)), KERNEL=bzImage MODULES=dir/lib/modules/VER (own kernel),'
	@echo '  ACCEL=tcg|kvm, PAGES, REPS, EXTRA, PERSIST_WRITES, KERNEL_ROUNDS, VM_TIMEOUT, SMOKE_KERNELS, MEASURE=icount|wall, BOOTS, GATE_ROUNDS,'
	@echo '  DELAY_NS, DELAY_FUNC (fault_delay.ko'"'"'s function), BREAKDOWN=1 (gate runs: daxlat --breakdown too, for make gate'"'"'s explanation)'

deps:
	$(Q)sh mk/deps.sh

$(O)/lib $(O)/bin $(O)/tests $(CHECK) $(KOUT)/kmod $(KOUT)/mutants:
	$(Q)mkdir -p $@

$(O)/lib/%.o: lib/%.c $(LIB_HDRS) | $(O)/lib
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(O)/bin/%: bench/%.c $(LIB_OBJS) $(LIB_HDRS) $(wildcard bench/*.h) | $(O)/bin
	$(call msg,CCLD,$@)
	$(Q)$(CC) $(CFLAGS) $(STATIC) $< $(LIB_OBJS) -o $@

$(O)/tests/%: tests/unit/%.c $(LIB_OBJS) $(LIB_HDRS) $(wildcard tests/unit/*.h) | $(O)/tests
	$(call msg,CCLD,$@)
	$(Q)$(CC) $(CFLAGS) $< $(LIB_OBJS) -o $@

# make kernel: the guest kernel GUEST (fetched); with KSRC=DIR, a kernel
# built from that source tree with the suite's fragment (KBASE: the base
# config, x86_64_defconfig by default), into KBUILD_OUT; it prints the
# KERNEL= MODULES= to give make check. make kernel-source GUEST=NAME
# fetches Debian's linux-source of that row into $(O)/src/NAME.
ifdef KSRC
KBASE ?= x86_64_defconfig
KBUILD_OUT ?= $(O)/own/$(notdir $(abspath $(KSRC)))
kernel:
	$(Q)sh mk/deps.sh $(KBUILD_PACKAGES)
	$(Q)sh kernel-config/build-kernel.sh $(KSRC) $(KBUILD_OUT) $(KBASE)
else
kernel: $(GUEST_STAMP)
endif
KBUILD_PACKAGES := flex bison bc libssl-dev libelf-dev dwarves ccache patch

# make patch-check KSRC=DIR PATCH='FILE...' [FIXES=ID] [CHECKS='check-syncorder ...']:
# the base and the patched kernel built from KSRC (build folders kept in
# PC_BUILDS), the guest jobs on both, and the report of what changed, into
# PC_OUT (kernel-config/README.md, "Testing a patch").
PC_BUILDS ?= $(O)/own/$(notdir $(abspath $(KSRC)))-pc
PC_OUT ?= results/runs/patch-check-$(shell date -u +%Y%m%dT%H%M%SZ)
.PHONY: patch-check
patch-check: all $(QEMU_STAMP)
	$(Q)[ -n "$(KSRC)" ] && [ -n "$(PATCH)" ] || { echo "make patch-check: KSRC=DIR and PATCH='FILE...' are required" >&2; exit 2; }
	$(Q)sh mk/deps.sh $(KBUILD_PACKAGES)
	$(Q)O=$(O) BUILDS=$(PC_BUILDS) CHECKS='$(CHECKS)' CONFIRM='$(CONFIRM)' FIXES='$(FIXES)' TAG='$(TAG)' WITH_GATE='$(WITH_GATE)' \
		sh kernel-config/patch-check.sh $(KSRC) $(PC_OUT) $(PATCH)
# make bisect KSRC=GIT_TREE GOOD=REV BAD=REV [TEST=gate|check|syncorder|crash]
# [METRIC='FS SCENARIO METRIC'] [TRIES=2] [BOOTS=3]: git bisect run over the
# tree, each step built with the fragment (BISECT_BUILDS: one build folder
# and a worktree) and judged by TEST, into BISECT_OUT (kernel-config/README.md,
# "Bisecting").
BISECT_BUILDS ?= $(O)/own/bisect-$(notdir $(abspath $(KSRC)))
BISECT_OUT ?= results/runs/bisect-$(shell date -u +%Y%m%dT%H%M%SZ)
.PHONY: bisect
bisect: all $(QEMU_STAMP)
	$(Q)[ -n "$(KSRC)" ] && [ -n "$(GOOD)" ] && [ -n "$(BAD)" ] || { echo "make bisect: KSRC=DIR GOOD=REV BAD=REV are required" >&2; exit 2; }
	$(Q)sh mk/deps.sh $(KBUILD_PACKAGES)
	$(Q)O=$(O) GATE=$(GATE) BUILDS=$(BISECT_BUILDS) TEST='$(TEST)' METRIC='$(METRIC)' TRIES='$(TRIES)' BOOTS='$(BOOTS)' \
		sh kernel-config/bisect.sh $(KSRC) $(GOOD) $(BAD) $(BISECT_OUT)
.PHONY: kernel-source
kernel-source:
	$(Q)sh vm/fetch-source.sh $(GUEST) $(O)/src/$(GUEST)
$(O)/kernels/%/.complete: kernel-config/kernels.txt vm/fetch-kernel.sh vm/private-apt.sh lib/kernels.sh
	$(Q)sh vm/fetch-kernel.sh $* $(O)/kernels/$*

initramfs: $(INITRD)
$(INITRD): $(GUEST_STAMP) vm/mkinitramfs.sh vm/guest/init vm/guest/lib.sh lib/ktap.sh lib/exitcodes.sh lib/exitcodes.h lib/scenarios.sh bench/scenarios.txt \
	validate/mutants/mutants.txt validate/workloads.txt validate/known-bugs.txt validate/conformance.txt validate/conformance.sh \
	vm/guest/filesystems.txt lib/filesystems.sh native/job.sh tests/native/check.sh bench/reproduce-guest.sh vm/results.awk
	$(call msg,INITRD,$@)
	$(Q)sh vm/mkinitramfs.sh $(GUEST_KVER) $(GUEST_MODROOT) $@

ifneq ($(QEMU_STAMP),)
$(QEMU_STAMP): vm/fetch-qemu.sh
	$(Q)sh vm/fetch-qemu.sh $(QEMU_SUITE) $(O)/qemu-$(QEMU_SUITE)
endif
all: $(QEMU_STAMP)
VM_ENV = VMLINUZ=$(VMLINUZ) INITRD=$(INITRD) BINDIR=$(O)/bin ACCEL=$(ACCEL) QEMU=$(QEMU) TCG_THREAD=$(TCG_THREAD) \
	GUEST_KVER=$(GUEST_KVER) KOUT=$(KOUT) CHECK=$(CHECK)

# 'check' installs packages first, then builds and tests in a second make so
# the build sees the tools deps just installed. TARGET=DIR: natively, on the
# DAX filesystem mounted there, no VM (native/native.mk).
check: deps
	$(Q)$(MAKE) --no-print-directory $(if $(TARGET),check-native,check-all)

.PHONY: check-all
check-all: all $(INITRD)
	$(Q)rm -rf $(CHECK) && mkdir -p $(CHECK)
	$(Q)$(MAKE) --no-print-directory -k check-host $(KERNEL_CHECKS) check-smoke; \
	sh tests/summary.sh $(HOST_TAPS) $(KERNEL_TAPS) $(SMOKE_TAPS)

# The other guest kernels, smoke (tests/guest/smoke.sh: boot, fsdax, one
# MAP_SYNC run under daxlat and one under syncorder, on ext4 and xfs) and
# the interface conformance matrix (tests/guest/conformance.sh): two boots
# each, the kernel's config checked first. SMOKE_KERNELS= skips them; none
# with KERNEL= (your own kernel is the one under test).
SMOKE_KERNELS ?= $(if $(KERNEL),,$(filter-out $(GUEST),$(KERNELS)))
SMOKE_TAPS = $(foreach k,$(SMOKE_KERNELS),$(CHECK)/smoke-$(k)-config.tap $(CHECK)/smoke-$(k).tap \
	$(CHECK)/conformance-$(k).tap)
.PHONY: check-smoke check-smoke-one
check-smoke: | $(CHECK)
	$(Q)for k in $(SMOKE_KERNELS); do \
		$(MAKE) --no-print-directory GUEST=$$k CHECK=$(CHECK) check-smoke-one; done
check-smoke-one: $(DAXLAT) $(SYNCORDER) $(MAPCONFORM) $(O)/bin/faultlat $(INITRD) $(QEMU_STAMP) | $(CHECK)
	@echo '  TEST     smoke and conformance on kernel $(GUEST): $(GUEST_KVER) (QEMU $(ACCEL))'
	$(Q)$(call kconfig_check,$(CHECK)/smoke-$(GUEST)-config.tap); \
	$(VM_ENV) O=$(O) sh tests/host/guest.sh smoke $(CHECK)/guest-smoke-$(GUEST) $(CHECK)/smoke-$(GUEST).tap; \
	$(VM_ENV) O=$(O) sh tests/host/guest.sh conformance $(CHECK)/guest-conformance-$(GUEST) $(CHECK)/conformance-$(GUEST).tap

# The guest half of make check on every kernel of kernel-config/kernels.txt,
# one after the other (never two boots at once), each into its own folder.
.PHONY: check-kernels check-kernels-all check-kernel
check-kernels: deps
	$(Q)$(MAKE) --no-print-directory check-kernels-all
check-kernels-all:
	$(Q)rm -rf $(O)/check-kernels; \
	for k in $(KERNELS); do \
		echo "  KERNEL   $$k: make check-kernel GUEST=$$k"; \
		$(MAKE) --no-print-directory GUEST=$$k CHECK=$(O)/check-kernels/$$k check-kernel 2>&1 | \
			tee $(O)/check-kernels.$$k.log | sed -u 's/^/  '"$$k"' /' | \
			grep --line-buffered -E ' (  TEST|  KERNEL|  (not )?ok |  \[ *[0-9]+s\] not ok |  guest job |.*passed, )'; \
	done; \
	sh tests/host/kernels-summary.sh $(O)/check-kernels '$(notdir $(KERNEL_TAPS))' $(KERNELS)
# One kernel's guest half: GUEST=NAME check-kernel.
check-kernel: all $(INITRD)
	$(Q)rm -rf $(CHECK) && mkdir -p $(CHECK)
	$(Q)$(MAKE) --no-print-directory -k $(KERNEL_CHECKS); \
	sh tests/summary.sh $(KERNEL_TAPS)

check-host: all | $(CHECK)
	@echo '  TEST     host unit tests'
	$(Q)tally() { echo "  $$1: $$(grep -c '^ok ' $$2) ok, $$(grep -c '^not ok ' $$2) not ok"; }; \
	for t in $(UNIT_BINS); do f=$(CHECK)/unit-$${t##*/}.tap; $$t > $$f 2>&1; tally $${t##*/} $$f; done; \
	for t in $(UNIT_SH); do n=$${t##*/}; f=$(CHECK)/unit-$${n%.sh}.tap; sh $$t > $$f 2>&1; tally $${n%.sh} $$f; done; true

# The guest kernel's config against the fragment, before it boots:
# $(call kconfig_check,TAPFILE).
kconfig_check = sh tests/host/guest-kernel-config.sh $(KCONFIG) >$(1) 2>&1; \
	grep -E '^(not )?ok ' $(1) | sed 's/^/  /'; true
.PHONY: check-kconfig
check-kconfig: $(GUEST_STAMP) | $(CHECK)
	@echo '  TEST     kernel config: $(GUEST_KVER)'
	$(Q)$(call kconfig_check,$(CHECK)/guest-kernel-config.tap)

check-guest: all $(INITRD) | $(CHECK)
	@echo '  TEST     guest tests (QEMU $(ACCEL), kernel $(GUEST_KVER))'
	$(Q)$(VM_ENV) O=$(O) sh tests/host/guest.sh check

# The runner's console watch, provoked: one boot per splat class.
SPLAT_KO := $(KOUT)/kmod/splat.ko
$(SPLAT_KO): tests/guest/splat/splat.c tests/guest/splat/Kbuild mk/kmod.sh $(GUEST_STAMP) | $(KOUT)/kmod
	$(call msg,KMOD,$@)
	$(Q)sh mk/kmod.sh tests/guest/splat splat $(GUEST_HEADERS) $(KOUT)/kmod/build $@ \
		$(if $(filter 1,$(V)),1,0)
all: $(SPLAT_KO)

# Boot each guest job of make check N times: a job that passed once can hang
# the next time. Not part of make check. JOBS from tests/guest/jobs.txt, or crash.
N ?= 30
JOBS ?= check bpf syncorder crash
.PHONY: soak
soak: all $(INITRD) $(FIO_ARCHIVE)
	$(Q)$(VM_ENV) O=$(O) sh tests/host/soak.sh $(N) $(JOBS)

.PHONY: check-runner
check-runner: $(SPLAT_KO) $(INITRD) $(QEMU_STAMP) | $(CHECK)
	@echo '  TEST     VM runner: each kernel splat class provoked and caught (QEMU $(ACCEL))'
	$(Q)$(VM_ENV) O=$(O) sh tests/host/test-runner.sh 2>&1 | tee $(CHECK)/runner.tap | \
		while IFS= read -r l; do case $$l in "ok "*|"not ok "*|"# "*caught*) echo "  $$l" ;; esac; done

.PHONY: check-bpf
check-bpf: $(DAXLAT) $(O)/bin/faultlat $(INITRD) $(QEMU_STAMP) | $(CHECK)
	@echo '  TEST     daxlat guest job (QEMU $(ACCEL), kernel $(GUEST_KVER))'
	$(Q)$(VM_ENV) O=$(O) sh tests/host/guest.sh bpf; rc=$$?; \
	sh tests/host/bpf-files.sh $(CHECK)/guest-bpf/files >$(CHECK)/bpf-files.tap 2>&1; \
	grep -E '^(not )?ok ' $(CHECK)/bpf-files.tap | sed 's/^/  /'; exit $$rc

# The short versions of make reproduce's persist and concurrency tables,
# checked (tests/guest/persist.sh): persistlat and faultlat --writers.
.PHONY: check-persist
check-persist: $(DAXLAT) $(O)/bin/faultlat $(O)/bin/persistlat $(INITRD) $(QEMU_STAMP) | $(CHECK)
	@echo '  TEST     persist and concurrent-writer guest job (QEMU $(ACCEL), kernel $(GUEST_KVER))'
	$(Q)$(VM_ENV) O=$(O) sh tests/host/guest.sh persist

# Programs nobody here wrote, on the suite's DAX filesystems (issue 32,
# tests/guest/clients.sh): Debian's PMDK and libbpf-tools' funclatency.
# Debian's fio and PMDK's debug libpmem (its log says what it chose) ride
# in the job's own archive (its jobs.txt row), not in every job's initramfs:
# fio links 62 libraries, 78 MB unpacked.
$(FIO_ARCHIVE): $(INITRD) vm/mkarchive.sh
	$(call msg,ARCHIVE,$@)
	$(Q)sh vm/mkarchive.sh $(INITRD) $@ fio /usr/lib/x86_64-linux-gnu/pmdk_dbg/libpmem.so.1
.PHONY: check-clients
check-clients: $(DAXLAT) $(SYNCORDER) $(PMEMOBJ_ARRAY) $(O)/bin/faultlat $(INITRD) $(FIO_ARCHIVE) $(QEMU_STAMP) | $(CHECK)
	@echo '  TEST     clients guest job: PMDK, fio, funclatency (QEMU $(ACCEL), kernel $(GUEST_KVER))'
	$(Q)$(VM_ENV) O=$(O) sh tests/host/guest.sh clients

reproduce: deps
	$(Q)$(MAKE) --no-print-directory $(if $(TARGET),reproduce-native,reproduce-run)

.PHONY: overhead
# daxlat's cost per fault: the same runs with and without it, in one boot.
overhead: all $(INITRD)
	$(Q)$(VM_ENV) PAGES=$(PAGES) ROUNDS=$(ROUNDS) WARMUP=$(OVERHEAD_WARMUP) SCENARIOS="$(OVERHEAD_SCENARIOS)" \
		MEASURE=$(MEASURE) ICOUNT=$(ICOUNT) GUEST_KVER=$(GUEST_KVER) sh bench/overhead.sh

# The reproduce scenarios on every kernel of kernel-config/kernels.txt, the
# kernels interleaved round by round, then one cross-kernel table
# (results/kernels-table.sh). Every kernel is fetched and built for first,
# so no download falls between two measured runs.
KERNEL_ROUNDS ?= 3
.PHONY: reproduce-kernels reproduce-kernels-all
reproduce-kernels: deps
	$(Q)$(MAKE) --no-print-directory reproduce-kernels-all
reproduce-kernels-all:
	$(Q)for k in $(KERNELS); do $(MAKE) --no-print-directory GUEST=$$k all initramfs || exit 1; done
	$(Q)MAKE="$(MAKE)" KERNELS="$(KERNELS)" KERNEL_ROUNDS=$(KERNEL_ROUNDS) PAGES=$(PAGES) REPS=$(REPS) \
		sh bench/reproduce-kernels.sh

.PHONY: reproduce-run
# The extra tables' real clients need Debian's fio in the guest (its archive).
reproduce-run: all $(INITRD) $(if $(filter 1,$(EXTRA)),$(FIO_ARCHIVE))
	$(Q)sh kernel-config/check-config.sh $(KCONFIG) >/dev/null || sh kernel-config/check-config.sh $(KCONFIG)
	$(Q)$(VM_ENV) PAGES=$(PAGES) REPS=$(REPS) KERNEL_VIEW=$(KERNEL_VIEW) EXTRA=$(EXTRA) PERSIST_WRITES=$(PERSIST_WRITES) \
		GUEST_KVER=$(GUEST_KVER) BENCH_FILES='$(if $(filter 1,$(EXTRA)),$(FIO_ARCHIVE))' sh bench/reproduce.sh

clean:
	$(call msg,CLEAN,$(O))
	$(Q)rm -rf $(O)

# The regression gate, its runs and its plots (after everything they use).
include results/results.mk
include lab/lab.mk

# The docs' result tables, rendered again from their recorded runs
# (results/figures.txt; tests/unit/test-figures.sh checks them).
.PHONY: figures
figures: $(GATE)
	$(Q)GATE=$(GATE) sh results/figures.sh update

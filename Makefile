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

# The guest kernel: Debian's pinned package, or your own build with
# KERNEL=bzImage MODULES=DIR/lib/modules/VERSION [KCONFIG=.config]
# (kernel-config/README.md). GUEST_MODROOT holds lib/modules/VERSION.
ifdef KERNEL
# A kernel that is not there is one line now, not a failure after a boot.
ifeq ($(wildcard $(KERNEL)),)
$(error KERNEL=$(KERNEL): no such kernel image)
endif
ifeq ($(wildcard $(MODULES)/modules.dep $(MODULES)/modules.order),)
$(error KERNEL=$(KERNEL) needs MODULES=DIR/lib/modules/VERSION with its modules (MODULES='$(MODULES)'))
endif
VMLINUZ := $(KERNEL)
GUEST_KVER := $(notdir $(MODULES))
GUEST_MODROOT := $(patsubst %/lib/modules/$(GUEST_KVER),%,$(MODULES))
KCONFIG ?= $(MODULES)/build/.config
GUEST_STAMP := $(KERNEL)
else
VMLINUZ := $(O)/kernel/vmlinuz
GUEST_KVER := $(GUEST_KERNEL_VERSION)
GUEST_MODROOT := $(O)/kernel
KCONFIG := $(O)/kernel/config
GUEST_STAMP := $(O)/kernel/.complete
endif
INITRD := $(O)/initramfs.cpio.gz
ACCEL ?= tcg
# QEMU: bookworm's 7.2 under multi-threaded TCG runs stale code after the
# kernel patches an instruction another vCPU executes (every BPF attach), and
# the guest locks up; bookworm-backports' 10.0 does not (README, "What runs
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
ROUNDS ?= 10
# Empty: the overhead set of bench/scenarios.txt.
OVERHEAD_SCENARIOS ?=

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
CHECK_TAPS = $(patsubst $(O)/tests/%,$(O)/check/unit-%.tap,$(UNIT_BINS)) \
	$(patsubst tests/unit/%.sh,$(O)/check/unit-%.tap,$(UNIT_SH)) \
	$(O)/check/guest-kernel-config.tap $(O)/check/guest-check.tap $(O)/check/guest-bpf.tap \
	$(O)/check/guest-syncorder.tap $(O)/check/crash.tap $(O)/check/runner.tap

.PHONY: all deps kernel initramfs check check-host check-guest reproduce clean help
all: $(BENCH_BINS) $(UNIT_BINS)

# Each part brings its own rules; they add to 'all' and to the checks.
include bpf/bpf.mk
include validate/validate.mk
include validate/crash/crash.mk
all: $(DAXLAT) $(CRASH_BINS)

help:
	@echo 'make            build the benchmark, tools and unit tests into $(O)/'
	@echo 'make deps       install the missing Debian packages (root)'
	@echo 'make check      host unit tests, guest kernel config check, guest tests in QEMU'
	@echo 'make reproduce  the cover letter'\''s six latency tables, in the guest, next to the seed'\''s'
	@echo 'make clean      remove $(O)/'
	@echo 'Variables: V=1 (verbose), KERNEL=bzImage MODULES=dir/lib/modules/VER (own kernel), ACCEL=tcg|kvm, PAGES, REPS, VM_TIMEOUT'

deps:
	$(Q)sh mk/deps.sh $(if $(KERNEL),,$(GUEST_HEADERS_PKG))

$(O)/lib $(O)/bin $(O)/tests $(O)/check:
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

kernel: $(GUEST_STAMP)
$(O)/kernel/.complete: kernel-config/guest-kernel.mk vm/fetch-kernel.sh
	$(Q)sh vm/fetch-kernel.sh $(GUEST_KERNEL_PKG) $(GUEST_KERNEL_DEB_VERSION) $(GUEST_KERNEL_VERSION) $(O)/kernel

initramfs: $(INITRD)
$(INITRD): $(GUEST_STAMP) vm/mkinitramfs.sh vm/guest/init vm/guest/lib.sh lib/ktap.sh lib/exitcodes.sh lib/exitcodes.h lib/scenarios.sh bench/scenarios.txt \
	validate/mutants/mutants.txt vm/guest/filesystems.txt lib/filesystems.sh
	$(call msg,INITRD,$@)
	$(Q)sh vm/mkinitramfs.sh $(GUEST_KVER) $(GUEST_MODROOT) $@

ifneq ($(QEMU_STAMP),)
$(QEMU_STAMP): vm/fetch-qemu.sh
	$(Q)sh vm/fetch-qemu.sh $(QEMU_SUITE) $(O)/qemu-$(QEMU_SUITE)
endif
all: $(QEMU_STAMP)
VM_ENV = VMLINUZ=$(VMLINUZ) INITRD=$(INITRD) BINDIR=$(O)/bin ACCEL=$(ACCEL) QEMU=$(QEMU) TCG_THREAD=$(TCG_THREAD) \
	GUEST_KVER=$(GUEST_KVER)

# 'check' installs packages first, then builds and tests in a second make so
# the build sees the tools deps just installed.
check: deps
	$(Q)$(MAKE) --no-print-directory check-all

.PHONY: check-all
check-all: all $(INITRD)
	$(Q)rm -rf $(O)/check && mkdir -p $(O)/check
	$(Q)$(MAKE) --no-print-directory -k check-host check-runner check-guest check-bpf check-syncorder crash-check; \
	sh tests/summary.sh $(CHECK_TAPS)

check-host: all | $(O)/check
	@echo '  TEST     host unit tests'
	$(Q)tally() { echo "  $$1: $$(grep -c '^ok ' $$2) ok, $$(grep -c '^not ok ' $$2) not ok"; }; \
	for t in $(UNIT_BINS); do f=$(O)/check/unit-$${t##*/}.tap; $$t > $$f 2>&1; tally $${t##*/} $$f; done; \
	for t in $(UNIT_SH); do n=$${t##*/}; f=$(O)/check/unit-$${n%.sh}.tap; sh $$t > $$f 2>&1; tally $${n%.sh} $$f; done; \
	sh tests/host/guest-kernel-config.sh $(KCONFIG) > $(O)/check/guest-kernel-config.tap 2>&1; true

check-guest: all $(INITRD) | $(O)/check
	@echo '  TEST     guest tests (QEMU $(ACCEL), kernel $(GUEST_KVER))'
	$(Q)$(VM_ENV) O=$(O) sh tests/host/guest.sh check

# The runner's console watch, provoked: one boot per splat class.
SPLAT_KO := $(O)/kmod/splat.ko
$(SPLAT_KO): tests/guest/splat/splat.c tests/guest/splat/Kbuild mk/kmod.sh
	$(call msg,KMOD,$@)
	$(Q)mkdir -p $(O)/kmod && sh mk/kmod.sh tests/guest/splat splat $(GUEST_HEADERS) $(O)/kmod/build $@ \
		$(if $(filter 1,$(V)),1,0)
all: $(SPLAT_KO)

# Boot each guest job of make check N times: a job that passed once can hang
# the next time. Not part of make check. JOBS from tests/guest/jobs.txt, or crash.
N ?= 30
JOBS ?= check bpf syncorder crash
.PHONY: soak
soak: all $(INITRD)
	$(Q)$(VM_ENV) O=$(O) sh tests/host/soak.sh $(N) $(JOBS)

.PHONY: check-runner
check-runner: $(SPLAT_KO) $(INITRD) $(QEMU_STAMP) | $(O)/check
	@echo '  TEST     VM runner: each kernel splat class provoked and caught (QEMU $(ACCEL))'
	$(Q)$(VM_ENV) O=$(O) sh tests/host/test-runner.sh 2>&1 | tee $(O)/check/runner.tap | \
		while IFS= read -r l; do case $$l in "ok "*|"not ok "*|"# "*caught*) echo "  $$l" ;; esac; done

.PHONY: check-bpf
check-bpf: $(DAXLAT) $(O)/bin/faultlat $(INITRD) $(QEMU_STAMP) | $(O)/check
	@echo '  TEST     daxlat guest job (QEMU $(ACCEL), kernel $(GUEST_KVER))'
	$(Q)$(VM_ENV) O=$(O) sh tests/host/guest.sh bpf

reproduce: deps
	$(Q)$(MAKE) --no-print-directory reproduce-run

.PHONY: overhead
# daxlat's cost per fault: the same runs with and without it, in one boot.
overhead: all $(INITRD)
	$(Q)$(VM_ENV) PAGES=$(PAGES) ROUNDS=$(ROUNDS) SCENARIOS="$(OVERHEAD_SCENARIOS)" GUEST_KVER=$(GUEST_KVER) sh bench/overhead.sh

.PHONY: reproduce-run
reproduce-run: all $(INITRD)
	$(Q)sh kernel-config/check-config.sh $(KCONFIG) >/dev/null || sh kernel-config/check-config.sh $(KCONFIG)
	$(Q)$(VM_ENV) PAGES=$(PAGES) REPS=$(REPS) KERNEL_VIEW=$(KERNEL_VIEW) GUEST_KVER=$(GUEST_KVER) sh bench/reproduce.sh

clean:
	$(call msg,CLEAN,$(O))
	$(Q)rm -rf $(O)

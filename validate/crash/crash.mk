# The MAP_SYNC crash test (validate/crash/README.md). Included by the
# top-level Makefile after its variables and rules (it uses O, Q, msg, CC,
# CFLAGS, STATIC, LIB_OBJS, LIB_HDRS, VM_ENV, INITRD, GUEST_STAMP).
#
#   make crash-check   short: CRASH_CHECK_COUNT crashes (default 4, about
#                      1.5 min), KTAP in $(CHECK)/crash.tap for make check
#   make crash-long    long: CRASH_LONG_COUNT crashes (default 24), into
#                      results/runs/crash-DATE-REV/
# Every crash hits 18 writers at once ({ext4,xfs} x {MAP_SYNC,MAP_SHARED} x
# {sparse,fallocated,grow,pmdk}, and xfs x {MAP_SYNC,MAP_SHARED} x reflink), so
# N crashes give N crashes per filesystem, map kind and file kind. Variables: CRASH_SEED (replay a run: the seed is
# printed first), CRASH_PAGES (256), CRASH_CHECK_DELAY / CRASH_LONG_DELAY
# (the longest random crash delay in ms, 2000 / 6000), CRASH_METHODS.

CRASH_BINS := $(O)/bin/pmwrite $(O)/bin/pmverify
# The PMDK writer: dynamic like every PMDK client (validate/clients/clients.mk).
PMOBJTX := $(O)/bin/pmobjtx
all: $(PMOBJTX)
CRASH_SEED ?=
CRASH_PAGES ?= 256
CRASH_CHECK_COUNT ?= 4
CRASH_CHECK_DELAY ?= 2000
CRASH_LONG_COUNT ?= 24
CRASH_LONG_DELAY ?= 6000
CRASH_METHODS ?= sysrq-delay sysrq-page kill-delay kill-progress

CRASH_ARGS = $(if $(CRASH_SEED),-s $(CRASH_SEED)) -n $(CRASH_PAGES) -M '$(CRASH_METHODS)'

$(CRASH_BINS): $(O)/bin/%: validate/crash/%.c $(LIB_OBJS) $(LIB_HDRS) | $(O)/bin
	$(call msg,CCLD,$@)
	$(Q)$(CC) $(CFLAGS) $(STATIC) $< $(LIB_OBJS) -o $@

$(PMOBJTX): validate/crash/pmobjtx.c $(PMDK_SHIM) $(LIB_OBJS) $(LIB_HDRS) | $(O)/bin
	$(call msg,CCLD,$@)
	$(Q)$(CC) $(CFLAGS) -Ivalidate/clients -pthread $< $(PMDK_SHIM) $(LIB_OBJS) -lpmemobj -ldl -o $@

.PHONY: crash-check crash-long
# The harness always leaves a KTAP file (a failing one if it died early),
# so make check's summary counts this step whatever happens; its own exit
# status does not stop make -k.
crash-check: $(CRASH_BINS) $(PMOBJTX) $(INITRD) $(GUEST_STAMP) $(QEMU_STAMP) | $(CHECK)
	@echo '  TEST     crash test: $(CRASH_CHECK_COUNT) crashes x 18 writers x $(CRASH_PAGES) pages (QEMU $(ACCEL))'
	$(Q)$(VM_ENV) sh validate/crash/crash.sh -q $(CRASH_ARGS) -c $(CRASH_CHECK_COUNT) \
		-d $(CRASH_CHECK_DELAY) -o $(CHECK)/crash-run -t $(CHECK)/crash.tap; \
	grep -E '^(not ok|# Totals)' $(CHECK)/crash.tap | sed 's/^/  /'; true

crash-long: $(CRASH_BINS) $(PMOBJTX) $(INITRD) $(GUEST_STAMP) $(QEMU_STAMP)
	$(Q). bench/run-lib.sh && run_dir crash && echo "crash-long: results in $$run"; \
	$(VM_ENV) sh validate/crash/crash.sh $(CRASH_ARGS) -c $(CRASH_LONG_COUNT) \
		-d $(CRASH_LONG_DELAY) -o $(O)/crash-long -t $$run/crash.tap -j $$run/summary.json; \
	rc=$$?; \
	cp $(O)/crash-long/log.txt $(O)/crash-long/crashes.jsonl $(O)/crash-long/verify.jsonl \
		$(O)/crash-long/fsck.jsonl $(O)/crash-long/fsck-problems.txt \
		$(O)/crash-long/kernel-problems.txt $(O)/crash-long/errors.txt $$run/ 2>/dev/null; \
	exit $$rc

# native/: the suite without the VM, on a host with a DAX filesystem mounted
# (real persistent memory, or a memmap= pmem region):
#   make check TARGET=DIR      tests/native/check.sh on DIR (the host unit
#                              tests are make check-host's, anywhere)
#   make reproduce TARGET=DIR  make reproduce's tables from DIR's filesystem
# Both refuse a DIR that is not DAX (daxcheck: one line, exit 3) before
# anything runs. Needs from the Makefile: O, CC, CFLAGS, LIB_OBJS, LIB_HDRS,
# the tools' variables (DAXLAT, SYNCORDER, ...), HOST_TAPS, CHECK.
# A TARGET with spaces is refused by name first, before anything is built:
# make splits it into words (daxcheck saw several DIRs) and bench/run-lib.sh
# hands it to native/job.sh unquoted. A link to it from a plain path works.
ifneq ($(filter-out 0 1,$(words $(TARGET))),)
$(error TARGET='$(TARGET)': a path with spaces is not supported (link it from one without: ln -s 'DIR' /mnt/pmem, then TARGET=/mnt/pmem))
endif
DAXCHECK := $(O)/bin/daxcheck
all: $(DAXCHECK)

# Static: the guest job tests/guest/native.sh runs it in the VM too.
$(DAXCHECK): native/daxcheck.c $(LIB_OBJS) $(LIB_HDRS) | $(O)/bin
	$(call msg,CCLD,$@)
	$(Q)$(CC) $(CFLAGS) -static $< $(LIB_OBJS) -o $@

# What a native job runs: no QEMU, initramfs or module (the BPF objects are
# still compiled against the default guest kernel's BTF, fetched for that:
# CO-RE relocates them to the host's).
NATIVE_BINS = $(DAXCHECK) $(O)/bin/faultlat $(O)/bin/persistlat $(DAXLAT) $(SYNCORDER) $(SYNCSTRESS) $(MAPCONFORM)
NATIVE_TAP = $(CHECK)/native-check.tap
NATIVE_ENV = BINDIR=$(O)/bin TARGET=$(TARGET)

.PHONY: native-target check-native reproduce-native
# The refusal comes first, before anything else is built or run.
native-target: $(DAXCHECK)
	$(Q)$(DAXCHECK) $(TARGET)

check-native: native-target $(NATIVE_BINS)
	$(Q)rm -rf $(CHECK) && mkdir -p $(CHECK)
	@echo '  TEST     native check on $(TARGET) (kernel '"$$(uname -r)"')'
	$(Q)$(NATIVE_ENV) sh native/job.sh --target $(TARGET) tests/native/check.sh $(CHECK)/native --timeout 1800; \
	cp $(CHECK)/native/results.txt $(NATIVE_TAP) 2>/dev/null; \
	sh tests/summary.sh --expect-skip crash_test $(NATIVE_TAP)

reproduce-native: native-target $(NATIVE_BINS)
	$(Q)$(NATIVE_ENV) PAGES=$(PAGES) REPS=$(REPS) KERNEL_VIEW=$(KERNEL_VIEW) EXTRA=$(EXTRA) \
		PERSIST_WRITES=$(PERSIST_WRITES) sh bench/reproduce.sh

# Native mode tested for real in the VM (tests/guest/native.sh): the guest
# plays a host with persistent memory. One boot, $(CHECK)/guest-native.tap.
.PHONY: check-native-mode
check-native-mode: $(NATIVE_BINS) $(INITRD) $(QEMU_STAMP) | $(CHECK)
	@echo '  TEST     native mode in the guest (QEMU $(ACCEL), kernel $(GUEST_KVER))'
	$(Q)$(VM_ENV) O=$(O) sh tests/host/guest.sh native

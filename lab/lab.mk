# lab/: the suite in a LAVA lab. The test definition (lab/test-definitions/
# automated/linux/mapsync/: Linaro test-definitions' layout), a job for
# LAVA's qemu device type that boots the guest kernel with vm/run.sh's two
# emulated NVDIMMs, the device dictionary it runs on here (lab/lava/), and
# make lava-check: that job run on this machine by LAVA's own dispatcher
# (lava-run, no server), the results LAVA recorded shown and kept in
# $(LAVA_OUT) (results.txt, lava.tap, lava.log, console.log).
# Included by the top-level Makefile last. Uses O, Q, msg, VMLINUZ, INITRD,
# QEMU, QEMU_STAMP, TCG_THREAD and the binaries of 'all'.
# Not part of make check: it installs lava-dispatcher (Debian's 2023.01) and
# boots a guest for minutes; make check-host tests the KTAP to LAVA test case
# translation (tests/unit/test-lava.sh) without LAVA.
#   LAVA_JOBS     guest jobs of tests/guest/jobs.txt the test definition runs
#   LAVA_TIMEOUT  seconds before lava-run itself is stopped (it has its own
#                 job timeout, 25 min, in lab/lava/mapsync-qemu.job.yaml)
LAVA_OUT ?= $(O)/lava
LAVA_JOBS ?= check smoke bpf conformance persist
LAVA_TIMEOUT ?= 1800
LAVA_ENV = VMLINUZ=$(VMLINUZ) INITRD=$(INITRD) BINDIR=$(O)/bin QEMU=$(QEMU) TCG_THREAD=$(TCG_THREAD) \
	LAVA_JOBS='$(LAVA_JOBS)' LAVA_TIMEOUT=$(LAVA_TIMEOUT)

.PHONY: lava-check lava-check-run lava-validate lava-validate-run
# As 'check': packages first (lab/lava-check.sh adds lava-dispatcher's),
# then a second make, so the build sees the tools deps just installed.
lava-check: deps
	$(Q)$(MAKE) --no-print-directory lava-check-run
# The initramfs LAVA boots is make's with the suite's binaries added under
# /suite/bin: 'all' before it.
lava-check-run: all $(INITRD) $(QEMU_STAMP)
	$(call msg,LAVA,lava-run of lab/lava/mapsync-qemu.job.yaml into $(LAVA_OUT))
	$(Q)$(LAVA_ENV) sh lab/lava-check.sh $(LAVA_OUT)

# The job and device through LAVA's schemas and lava-run --validate only:
# no boot, for a machine that must not start a guest now.
lava-validate: deps
	$(Q)$(MAKE) --no-print-directory lava-validate-run
lava-validate-run: all $(INITRD) $(QEMU_STAMP)
	$(call msg,LAVA,validate lab/lava/mapsync-qemu.job.yaml)
	$(Q)$(LAVA_ENV) sh lab/lava-check.sh --validate-only $(LAVA_OUT)

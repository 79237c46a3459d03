# results/: the regression gate (gate.c) on its statistics (stats.c), which
# need libm and stay out of lib/ so the static guest tools do not.
# Needs from the Makefile: O, CC, CFLAGS, LIB_OBJS, LIB_HDRS.
GATE := $(O)/bin/gate
STATS_OBJ := $(O)/results/stats.o
GATE_CORE_OBJ := $(O)/results/gate_core.o
GATE_RUN_OBJ := $(O)/results/gate_run.o
all: $(GATE)

$(O)/results:
	$(Q)mkdir -p $@

$(STATS_OBJ): results/stats.c results/stats.h | $(O)/results
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(GATE_CORE_OBJ): results/gate_core.c results/gate_core.h results/stats.h | $(O)/results
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(GATE_RUN_OBJ): results/gate_run.c results/gate_run.h $(LIB_HDRS) | $(O)/results
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(GATE): results/gate.c $(GATE_CORE_OBJ) $(GATE_RUN_OBJ) $(STATS_OBJ) $(LIB_OBJS) $(LIB_HDRS) results/gate_core.h results/gate_run.h | $(O)/bin
	$(call msg,CCLD,$@)
	$(Q)$(CC) $(CFLAGS) -Iresults $< $(GATE_CORE_OBJ) $(GATE_RUN_OBJ) $(STATS_OBJ) $(LIB_OBJS) -lm -o $@

$(O)/tests/test_stats: tests/unit/test_stats.c $(STATS_OBJ) $(LIB_OBJS) tests/unit/ktap.h | $(O)/tests
	$(call msg,CCLD,$@)
	$(Q)$(CC) $(CFLAGS) -Iresults $< $(STATS_OBJ) $(LIB_OBJS) -lm -o $@

# ---- gate runs -------------------------------------------------------------
# MEASURE=icount (default): guest time from instructions executed (QEMU
# -icount, ICOUNT's suboptions): run-to-run CV under 1.3 % per run where
# wall time under TCG gave 14-33 % (results/baselines/measure-modes-*).
# MEASURE=wall: TCG multi-threaded wall time, as make reproduce.
MEASURE ?= icount
ICOUNT ?= shift=4,sleep=off,align=off
BOOTS ?= 3
GATE_ROUNDS ?= 5
DELAY_NS ?= 0
# PHASES=1: each boot ends with the MAP_SYNC scenarios under daxlat, their
# in-kernel phases gated as rows SCENARIO:PHASE.
PHASES ?= 1
# BREAKDOWN=1: and one run under daxlat --breakdown, whose files make gate
# explains a worse verdict with (results/gate-explain.sh).
BREAKDOWN ?= 0
# GATE_SETS: the scenario sets of bench/scenarios.txt a gate run measures.
GATE_SETS ?= gate
# The function fault_delay.ko delays (bench/delay/fault_delay.c).
DELAY_FUNC ?= dax_iomap_fault
DELAY_KO := $(KOUT)/kmod/fault_delay.ko
GATE_RUN_ENV = $(VM_ENV) O=$(O) PAGES=$(PAGES) ROUNDS=$(GATE_ROUNDS) BOOTS=$(BOOTS) MEASURE=$(MEASURE) \
	ICOUNT=$(ICOUNT) DELAY_NS=$(DELAY_NS) DELAY_KO=$(DELAY_KO) DELAY_FUNC=$(DELAY_FUNC) PHASES=$(PHASES) \
	BREAKDOWN=$(BREAKDOWN) GATE_SETS=$(GATE_SETS)

$(DELAY_KO): bench/delay/fault_delay.c bench/delay/Kbuild mk/kmod.sh $(GUEST_STAMP) | $(KOUT)/kmod
	$(call msg,KMOD,$@)
	$(Q)sh mk/kmod.sh bench/delay fault_delay $(GUEST_HEADERS) $(KOUT)/kmod/delay-build $@ \
		$(if $(filter 1,$(V)),1,0)

.PHONY: gate-run
# One gate run (BOOTS boots x GATE_ROUNDS rounds), into results/runs/ (RUN_DIR=).
gate-run: all $(INITRD) $(DELAY_KO)
	$(Q)$(GATE_RUN_ENV) sh bench/gate-run.sh

# ---- the gate ---------------------------------------------------------------
# make gate BASE=RUN NEW=RUN [GATE_OUT=DIR] [GATE_FLAGS=--floor 2]: the
# verdict table, JSON, KTAP, noise, plots and report.md into GATE_OUT; the
# exit status is the gate's (16 regression, 17 unknown, 18 not comparable).
GATE_OUT ?= results/runs/gate-$(notdir $(NEW))-vs-$(notdir $(BASE))
GATE_REF_FLAGS = $(foreach r,$(GATE_REFERENCE),--reference $(r))
.PHONY: gate baseline
gate: $(GATE)
	$(Q)[ -n "$(BASE)" ] && [ -n "$(NEW)" ] || { echo 'make gate: BASE=RUN and NEW=RUN are required (gate runs: make gate-run)' >&2; exit 2; }
	$(Q)sh mk/deps.sh
	$(Q)GATE=$(GATE) sh results/gate-report.sh $(BASE) $(NEW) $(GATE_OUT) $(GATE_REF_FLAGS) $(GATE_FLAGS)

# make baseline: a gate run of this kernel (BASELINE_BOOTS x GATE_ROUNDS)
# kept under results/baselines/, with its noise table and plots. 10 boots
# make it its own reference: gated against it, 3-boot runs get floors from
# its boot-to-boot spread.
BASELINE_BOOTS ?= 10
BASELINE_DIR ?= results/baselines/gate-$(GUEST)-$(shell date -u +%Y%m%dT%H%M%SZ)-$(shell git rev-parse --short HEAD 2>/dev/null)
baseline: deps
	$(Q)$(MAKE) --no-print-directory gate-run RUN_DIR=$(BASELINE_DIR) BOOTS=$(BASELINE_BOOTS)
	$(Q)$(GATE) --noise --base $(BASELINE_DIR) | tee $(BASELINE_DIR)/noise.txt
	$(Q)GATE=$(GATE) sh results/plot.sh run $(BASELINE_DIR) $(BASELINE_DIR)

# make reproduce's plots have the gate check the run first (results/plot.sh),
# natively too: after native.mk's refusal of a target that is not DAX.
reproduce-native: $(GATE)

# ---- KCIDB -------------------------------------------------------------------
# make kcidb RUN='DIR...' [KCIDB_OUT=F] [KCIDB_FLAGS='--origin LAB']: a lab
# reporting to KernelCI's common database (kcidb-submit) gets one KCIDB v5
# document of checks, measurements and verdicts: results/kcidb.sh. RUN: a
# make check folder, results/runs/ID folders, gate outputs (space-separated).
KCIDB_OUT ?= $(O)/kcidb.json
KCIDB_FLAGS ?=
.PHONY: kcidb
kcidb:
	$(Q)[ -n "$(strip $(RUN))" ] || { echo 'make kcidb: RUN=DIR is required (a make check folder such as $(CHECK), a results/runs/ID folder or a gate output)' >&2; exit 2; }
	$(Q)mkdir -p $(dir $(KCIDB_OUT)) && sh results/kcidb.sh $(KCIDB_FLAGS) $(RUN) >$(KCIDB_OUT).tmp && \
		mv $(KCIDB_OUT).tmp $(KCIDB_OUT) || { rc=$$?; rm -f $(KCIDB_OUT).tmp; exit $$rc; }
	@echo '  KCIDB    $(KCIDB_OUT)'

# ---- how far the gate can be trusted (long: minutes per gate run) ----------
# make gate-aa [AA_N=20]: A/A comparisons, every verdict counted.
# make gate-power [POWER_DELAYS=... POWER_TRIALS=4]: the detection rate of an
# injected delay (bench/delay/fault_delay.ko) per filesystem and scenario.
# GATE_REFERENCE: run folders of this setup whose boots set the gate's floors
# (gate --reference); empty: each base is its own (floors from 10 boots up).
AA_N ?= 20
POWER_DELAYS ?= 430 860 2150 4300 10700 28600 71400
POWER_TRIALS ?= 4
GATE_REFERENCE ?=

# The counts above, checked where they enter: the scripts get GATE_ROUNDS as
# ROUNDS, BASELINE_BOOTS as BOOTS (make baseline's own make), AA_N and
# POWER_TRIALS as arguments, and would name the wrong variable, or boot
# first (gate-aa AA_N=0 did). One line naming what the user set, exit 2,
# before anything is built. A count: one whole number from 1, at most 6
# digits (bench/run-lib.sh's need_count); a delay: at most 9.
not_digits = $(subst 9,,$(subst 8,,$(subst 7,,$(subst 6,,$(subst 5,,$(subst 4,,$(subst 3,,$(subst 2,,$(subst 1,,$(subst 0,,$(1)))))))))))
n_digits = $(words $(subst 0,0 ,$(subst 1,1 ,$(subst 2,2 ,$(subst 3,3 ,$(subst 4,4 ,$(subst 5,5 ,$(subst 6,6 ,$(subst 7,7 ,$(subst 8,8 ,$(subst 9,9 ,$(1))))))))))))
# is_count VALUE MAX_DIGITS: non-empty when VALUE is such a number.
is_count = $(and $(filter 1,$(words $(1))),$(if $(call not_digits,$(1)),,1),$(if $(filter 0%,$(1)),,1),$(filter $(wordlist 1,$(2),1 2 3 4 5 6 7 8 9),$(call n_digits,$(1))))
$(foreach v,GATE_ROUNDS BOOTS BASELINE_BOOTS AA_N POWER_TRIALS,$(if $(call is_count,$($(v)),6),,\
	$(error $(v)=$($(v)): must be a whole number of at least 1 (6 digits at most))))
$(if $(strip $(POWER_DELAYS)),,$(error POWER_DELAYS is empty: one or more delays in ns (default 430 860 2150 4300 10700 28600 71400)))
$(foreach w,$(POWER_DELAYS),$(if $(call is_count,$(w),9),,\
	$(error POWER_DELAYS='$(POWER_DELAYS)': '$(w)' is not a whole number of ns from 1 (9 digits at most))))
# GATE_SETS: sets that have rows in bench/scenarios.txt.
comma := ,
SCENARIO_SETS := $(shell awk '!/^\#/ && NF >= 7 { n = split($$7, s, ","); for (i = 1; i <= n; i++) print s[i] }' bench/scenarios.txt | sort -u)
$(foreach w,$(subst $(comma), ,$(GATE_SETS)),$(if $(filter $(w),$(SCENARIO_SETS)),,\
	$(error GATE_SETS=$(GATE_SETS): '$(w)' is no scenario set of bench/scenarios.txt ($(SCENARIO_SETS)))))
STUDY_ID = $(shell date -u +%Y%m%dT%H%M%SZ)-$(shell git rev-parse --short HEAD 2>/dev/null)
.PHONY: gate-aa gate-power
gate-aa: all $(INITRD) $(DELAY_KO)
	$(Q)$(GATE_RUN_ENV) GATE=$(GATE) GATE_REFERENCE="$(GATE_REFERENCE)" sh bench/gate-study.sh aa $(AA_N) \
		results/runs/gate-aa-$(STUDY_ID)
gate-power: all $(INITRD) $(DELAY_KO)
	$(Q)$(GATE_RUN_ENV) GATE=$(GATE) GATE_REFERENCE="$(GATE_REFERENCE)" sh bench/gate-study.sh power "$(POWER_DELAYS)" \
		$(POWER_TRIALS) results/runs/gate-power-$(STUDY_ID)

# ---- make check's short gate ----------------------------------------------
# Three gate runs of 3 boots (base and fault_delay with phases, A/A
# without): about 6 min.
KERNEL_CHECKS += check-gate
KERNEL_TAPS += $(CHECK)/gate.tap
.PHONY: check-gate
check-gate: all $(INITRD) $(DELAY_KO) $(DAXLAT_COSTLY) | $(CHECK)
	@echo '  TEST     short gate: A/A and a known slowdown (QEMU $(ACCEL), measure $(MEASURE), kernel $(GUEST_KVER))'
	$(Q)$(GATE_RUN_ENV) GATE=$(GATE) DAXLAT_COSTLY=$(DAXLAT_COSTLY) sh tests/host/gate-check.sh $(CHECK)/gate >$(CHECK)/gate.tap 2>&1; \
	grep -E '^(not )?ok |^# (aa|slow):' $(CHECK)/gate.tap | sed 's/^/  /'; true

# make gate-kernels: a gate run on every kernel of kernel-config/kernels.txt,
# then each gated against the first (the default): "did the fault path get
# slower between these kernels", with reports under the study's folder.
GATE_KERNELS_DIR ?= results/runs/gate-kernels-$(STUDY_ID)
.PHONY: gate-kernels
gate-kernels: deps
	$(Q)for k in $(KERNELS); do $(MAKE) --no-print-directory GUEST=$$k all initramfs || exit 1; done
	$(Q)for k in $(KERNELS); do \
		$(MAKE) --no-print-directory GUEST=$$k gate-run RUN_DIR=$(GATE_KERNELS_DIR)/$$k || exit 1; done
	$(Q)set -- $(KERNELS); first=$$1; shift; rc=0; for k in "$$@"; do \
		echo "=== gate: $$k against $$first"; \
		GATE=$(GATE) sh results/gate-report.sh $(GATE_KERNELS_DIR)/$$first $(GATE_KERNELS_DIR)/$$k \
			$(GATE_KERNELS_DIR)/gate-$$k-vs-$$first $(GATE_REF_FLAGS) $(GATE_FLAGS) || rc=$$?; done; exit $$rc

# results/: the regression gate (gate.c) on its statistics (stats.c), which
# need libm and stay out of lib/ so the static guest tools do not.
# Needs from the Makefile: O, CC, CFLAGS, LIB_OBJS, LIB_HDRS.
GATE := $(O)/bin/gate
STATS_OBJ := $(O)/results/stats.o

$(O)/results:
	$(Q)mkdir -p $@

$(STATS_OBJ): results/stats.c results/stats.h | $(O)/results
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(O)/tests/test_stats: tests/unit/test_stats.c $(STATS_OBJ) $(LIB_OBJS) tests/unit/ktap.h | $(O)/tests
	$(call msg,CCLD,$@)
	$(Q)$(CC) $(CFLAGS) -Iresults $< $(STATS_OBJ) $(LIB_OBJS) -lm -o $@

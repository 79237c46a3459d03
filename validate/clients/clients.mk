# validate/clients/: programs nobody here wrote, run by the suite (issue 32),
# and our own client of them. Make fragment included by the top-level
# Makefile. Uses O, Q, msg, CC, CFLAGS, LIB_OBJS, LIB_HDRS.
# Produces:
#   $(O)/bin/pmemobj-array   a libpmemobj workload, linked dynamically
#                            against Debian's PMDK (libpmemobj-dev): its
#                            libraries are in the initramfs (vm/mkinitramfs.sh)
# Its guest job, check-clients, is in the Makefile (part of make check).

clients_saved_goal := $(.DEFAULT_GOAL)

PMEMOBJ_ARRAY := $(O)/bin/pmemobj-array
all: $(PMEMOBJ_ARRAY)

# Dynamic: Debian ships no static libndctl/libdaxctl (PMDK needs them), and
# the debug libraries (libpmemobj1-debug) can then be swapped in.
$(PMEMOBJ_ARRAY): validate/clients/pmemobj-array.c $(LIB_OBJS) $(LIB_HDRS) | $(O)/bin
	$(call msg,CCLD,$@)
	$(Q)$(CC) $(CFLAGS) -pthread $< $(LIB_OBJS) -lpmemobj -o $@

.DEFAULT_GOAL := $(clients_saved_goal)

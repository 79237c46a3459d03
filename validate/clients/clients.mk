# validate/clients/: programs nobody here wrote, run by the suite (issue 32),
# and our own client of them. Make fragment included by the top-level
# Makefile. Uses O, Q, msg, CC, CFLAGS, LIB_OBJS, LIB_HDRS.
# Produces:
#   $(O)/bin/pmemobj-array   a libpmemobj workload, linked dynamically
#                            against Debian's PMDK (libpmemobj-dev): its
#                            libraries are in the initramfs (vm/mkinitramfs.sh)
#   $(PMDK_SHIM)             what PMDK decided, seen from inside the process
#                            (pmdk_shim.h): linked into every PMDK client,
#                            the crash test's pmobjtx too
# Its guest job, check-clients, is in the Makefile (part of make check).

clients_saved_goal := $(.DEFAULT_GOAL)

PMEMOBJ_ARRAY := $(O)/bin/pmemobj-array
PMDK_SHIM := $(O)/validate/clients/pmdk_shim.o
all: $(PMEMOBJ_ARRAY)

$(PMDK_SHIM): validate/clients/pmdk_shim.c validate/clients/pmdk_shim.h $(LIB_HDRS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -Ivalidate/clients -c $< -o $@

# Dynamic: Debian ships no static libndctl/libdaxctl (PMDK needs them), and
# the debug libraries (libpmemobj1-debug) can then be swapped in.
$(PMEMOBJ_ARRAY): validate/clients/pmemobj-array.c $(PMDK_SHIM) $(LIB_OBJS) $(LIB_HDRS) | $(O)/bin
	$(call msg,CCLD,$@)
	$(Q)$(CC) $(CFLAGS) -Ivalidate/clients -pthread $< $(PMDK_SHIM) $(LIB_OBJS) -lpmemobj -ldl -o $@

.DEFAULT_GOAL := $(clients_saved_goal)

# tools.mk - host tools built by `make all` (included by the Makefile).
#
# HOST_TOOLS lists the host programs; each issue that adds one appends it.
HOST_CC     ?= gcc
HOST_CFLAGS ?= -std=gnu11 -O2 -g -Wall -Wextra -Werror -I. -Iinclude
HOST_TOOLS  :=

.PHONY: host-tools
host-tools: $(HOST_TOOLS)

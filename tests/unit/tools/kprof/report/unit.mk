# tests/unit/tools/kprof/report/unit.mk - the host tool's report (included
# by tests/unit/unit.mk):
#   quantiles   the exact medians and 99th percentiles in bounded memory
#               (tools/kprof/report/quantiles.c) against a sort of every
#               value, over budgets that take one reading or many

UNIT_TESTS += tests/unit/tools/kprof/report/test_quantiles.c
unit_quantiles_SRCS := tools/kprof/report/quantiles.c tools/kprof/util/alloc.c

$(BUILD)/tests/unit/tools/kprof/report/test_quantiles: tools/kprof/report/quantiles.h

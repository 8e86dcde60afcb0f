# tests/unit/kernel/mm/unit.mk - memory (included by tests/unit/unit.mk):
#   pmm    the physical page allocator (kernel/mm/pmm.c) on a fake memory map
#   heap   kmalloc/kfree (kernel/mm/heap.c) over the real page allocator on
#          fake RAM

UNIT_TESTS += tests/unit/kernel/mm/test_pmm.c tests/unit/kernel/mm/test_heap.c

unit_pmm_SRCS  := kernel/mm/pmm.c
unit_heap_SRCS := kernel/mm/heap.c kernel/mm/pmm.c

# unit-objname.mk - the table of named objects and its KprofObjectName
# records (kernel/trace/objname.c): at creation, in the rundown, gated by
# group, forgotten, replaced, the table full, the name cut.

unit_objname_SRCS := kernel/trace/objname.c kernel/lib/printf.c

UNIT_NAMES += objname

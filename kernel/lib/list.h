/*
 * list.h - circular doubly linked lists, the LIST_ENTRY of Windows.
 *
 * An empty list is a head pointing at itself.  Entries are embedded in
 * their objects; CONTAINING_RECORD gets back to the object.  No locking:
 * every list's owner says which lock guards it.
 */
#ifndef KPROF_KERNEL_LIST_H
#define KPROF_KERNEL_LIST_H

#include <stdbool.h>
#include <stddef.h>

typedef struct list_entry {
	struct list_entry *Flink; /* next entry (the head when last)      */
	struct list_entry *Blink; /* previous entry (the head when first) */
} LIST_ENTRY;

#define CONTAINING_RECORD(address, type, field) ((type *)((char *)(address) - offsetof(type, field)))

static inline void list_init(LIST_ENTRY *head)
{
	head->Flink = head->Blink = head;
}

static inline bool list_empty(const LIST_ENTRY *head)
{
	return head->Flink == head;
}

static inline void list_insert_tail(LIST_ENTRY *head, LIST_ENTRY *e)
{
	e->Flink = head;
	e->Blink = head->Blink;
	head->Blink->Flink = e;
	head->Blink = e;
}

static inline void list_insert_head(LIST_ENTRY *head, LIST_ENTRY *e)
{
	e->Flink = head->Flink;
	e->Blink = head;
	head->Flink->Blink = e;
	head->Flink = e;
}

/* Unlink e; e's own pointers are left pointing at itself. */
static inline void list_remove(LIST_ENTRY *e)
{
	e->Blink->Flink = e->Flink;
	e->Flink->Blink = e->Blink;
	e->Flink = e->Blink = e;
}

/* Unlink and return the first entry, or NULL when empty. */
static inline LIST_ENTRY *list_remove_head(LIST_ENTRY *head)
{
	if (list_empty(head))
		return NULL;
	LIST_ENTRY *e = head->Flink;
	list_remove(e);
	return e;
}

#endif /* KPROF_KERNEL_LIST_H */

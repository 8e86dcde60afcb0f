/*
 * xhci_model_slots.c - the controller model's command ring and slots:
 * commands run on doorbell 0 against the device contexts the model keeps
 * (Enable/Disable Slot, Address Device, Evaluate Context, Configure
 * Endpoint, Reset/Stop Endpoint, Set TR Dequeue Pointer), and transfer
 * rings run on their doorbells against the scripted device, one TD at a
 * time, with the events an xHCI 1.x controller posts (xhci_model.h), and
 * each bulk endpoint's data toggle (flipped per packet, restarted by
 * Configure Endpoint adding it or by Reset Endpoint).
 */
#include "support/xhci_model.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

static uint32_t ep_state(uint32_t *ctx)
{
	return ctx[0] & 7;
}

static void set_ep_state(uint32_t *ctx, uint32_t s)
{
	ctx[0] = (ctx[0] & ~7u) | s;
}

static void load_ep(unsigned slot, unsigned dci, uint32_t *out, const uint32_t *in)
{
	memcpy(out, in, 5 * sizeof(uint32_t));
	set_ep_state(out, 1);
	model.ep[slot][dci].deq = ((uint64_t)in[3] << 32 | in[2]) & ~0xFull;
	model.ep[slot][dci].ccs = in[2] & 1;
	model.ep[slot][dci].toggle = 0;
}

/* Packets of a bulk or interrupt TRB that moved `moved` of its bytes: a
 * zero-length packet counts as one. */
static uint32_t packets(unsigned slot, unsigned dci, uint32_t moved)
{
	uint32_t mps = model_out_ctx(NULL, slot, dci)[1] >> 16;
	return moved && mps ? (moved + mps - 1) / mps : 1;
}

static uint32_t do_command(struct xhci_trb *t, uint32_t *slot_out)
{
	unsigned type = TRB_GET_TYPE(t->control), slot = TRB_GET_SLOT(t->control), dci = TRB_GET_EP(t->control);
	uint32_t *in = (uint32_t *)(uintptr_t)t->param, *out;
	unsigned w = model.csz / 4; /* dwords per context */

	model.cmd_count[type]++;
	*slot_out = slot;
	switch (type) {
	case TRB_ENABLE_SLOT:
		for (unsigned i = 1; i <= MODEL_SLOTS; i++) {
			if (!model.enabled[i]) {
				model.enabled[i] = true;
				*slot_out = i;
				return CC_SUCCESS;
			}
		}
		return CC_NO_SLOTS;
	case TRB_ADDRESS_DEVICE:
		out = model_out_ctx(NULL, slot, 0);
		if ((in[INPUT_ADD] & 3) != 3)
			return CC_PARAMETER;
		if (model.address_fails) { /* the device did not answer SET_ADDRESS */
			model.address_fails--;
			return CC_USB_TRANSACTION;
		}
		/* As QEMU: one slot per place on the bus (root port, route). */
		uint32_t place = 1u << 28 | ((in[w + 1] >> 16) & 0xFF) << 20 | (in[w] & 0xFFFFF);
		for (unsigned i = 1; i <= MODEL_SLOTS; i++)
			if (i != slot && model.addressed[i] == place)
				return CC_TRB;
		model.addressed[slot] = place;
		memcpy(out, in + w, 4 * sizeof(uint32_t));
		out[3] = slot | 2u << 27; /* addressed */
		load_ep(slot, 1, out + w, in + 2 * w);
		return CC_SUCCESS;
	case TRB_EVALUATE_CONTEXT:
		if (in[INPUT_ADD] & 2) {
			out = model_out_ctx(NULL, slot, 1);
			out[1] = (out[1] & 0xFFFF) | (in[2 * w + 1] & 0xFFFF0000u);
		}
		return CC_SUCCESS;
	case TRB_CONFIGURE_ENDPOINT:
		if ((in[INPUT_ADD] & 3) != 1)
			return CC_TRB; /* A0 set, A1 clear: as QEMU checks */
		out = model_out_ctx(NULL, slot, 0);
		memcpy(out, in + w, 3 * sizeof(uint32_t));
		for (unsigned i = 2; i < 32; i++) {
			if (in[INPUT_DROP] & (1u << i))
				set_ep_state(model_out_ctx(NULL, slot, i), 0);
			if (in[INPUT_ADD] & (1u << i)) {
				if (ep_state(model_out_ctx(NULL, slot, i)) && !(in[INPUT_DROP] & (1u << i)))
					return CC_CONTEXT_STATE; /* added twice without a drop */
				load_ep(slot, i, model_out_ctx(NULL, slot, i), in + w * (i + 1));
			}
		}
		return CC_SUCCESS;
	case TRB_RESET_ENDPOINT:
		out = model_out_ctx(NULL, slot, dci);
		if (ep_state(out) != EP_STATE_HALTED)
			return CC_CONTEXT_STATE;
		set_ep_state(out, 3);
		model.ep[slot][dci].toggle = 0;
		return CC_SUCCESS;
	case TRB_STOP_ENDPOINT:
		out = model_out_ctx(NULL, slot, dci);
		if (ep_state(out) != 1)
			return CC_CONTEXT_STATE;
		set_ep_state(out, 3);
		model_post_event(model.ep[slot][dci].deq, CC_STOPPED, 0, TRB_TRANSFER_EVENT, slot, dci);
		return CC_SUCCESS;
	case TRB_SET_TR_DEQUEUE:
		out = model_out_ctx(NULL, slot, dci);
		if (ep_state(out) != 3 && ep_state(out) != 4)
			return CC_CONTEXT_STATE;
		model.ep[slot][dci].deq = t->param & ~0xFull;
		model.ep[slot][dci].ccs = t->param & 1;
		return CC_SUCCESS;
	case TRB_DISABLE_SLOT:
		if (!model.enabled[slot])
			return CC_SLOT_NOT_ENABLED;
		model.enabled[slot] = false;
		model.addressed[slot] = 0;
		return CC_SUCCESS;
	case TRB_NOOP_CMD:
		return CC_SUCCESS;
	default:
		return CC_TRB;
	}
}

/* Doorbell 0: run the command ring until a TRB the controller does not
 * own; link TRBs are followed (toggling the cycle state with TC). */
void model_run_commands(void)
{
	for (;;) {
		struct xhci_trb *t = (struct xhci_trb *)(uintptr_t)model.cmd_deq;
		uint32_t slot, cc;

		if ((t->control & TRB_CYCLE) != model.cmd_ccs)
			return;
		if (TRB_GET_TYPE(t->control) == TRB_LINK) {
			if (t->control & TRB_TC)
				model.cmd_ccs ^= 1;
			model.cmd_deq = t->param;
			continue;
		}
		if (!model.answer_commands) {
			*model_reg(MODEL_OP + XHCI_CRCR) |= CRCR_CRR;
			return;
		}
		model.commands++;
		cc = do_command(t, &slot);
		model_post_event(model.cmd_deq, cc, 0, TRB_COMMAND_COMPLETION, slot, 0);
		model.cmd_deq += sizeof(*t);
	}
}

/* ------------------------------------------------------- transfer rings */

/* One TD from the endpoint's dequeue pointer: 0 done, or MODEL_NAK /
 * MODEL_STALL (the dequeue pointer stays at the TD). */
static int run_td(unsigned slot, unsigned dci)
{
	struct model_ep *e = &model.ep[slot][dci];
	uint64_t at = e->deq;
	uint32_t ccs = e->ccs;
	bool shortpkt = false, reported = false, first = true;

	for (;;) {
		struct xhci_trb *t = (struct xhci_trb *)(uintptr_t)at;
		uint32_t ctl = t->control, len = TRB_LEN(t->status), residual = 0;
		unsigned type = TRB_GET_TYPE(ctl);
		int r;

		if ((ctl & TRB_CYCLE) != ccs)
			return MODEL_NAK; /* half a TD: wait for the rest */
		if (type == TRB_LINK) {
			if (ctl & TRB_TC)
				ccs ^= 1;
			at = t->param;
			continue;
		}
		if (type == TRB_SETUP) {
			struct usb_setup setup;
			memcpy(&setup, &t->param, sizeof(setup));
			r = model.device(slot, dci, false, NULL, 0, &setup);
		} else if (type == TRB_DATA || type == TRB_NORMAL) {
			bool in = type == TRB_DATA ? (ctl & TRB_DIR_IN) != 0 : (dci & 1);
			if (len && (t->param >> 16) != ((t->param + len - 1) >> 16))
				model.boundary_crossings++;
			r = shortpkt ? 0 : model.device(slot, dci, in, (uint8_t *)(uintptr_t)t->param, len, NULL);
		} else {
			r = 0; /* status stage */
		}
		if (r == MODEL_NAK && first)
			return MODEL_NAK;
		if (r == MODEL_STALL || r == MODEL_NAK) {
			model_post_event(at, CC_STALL, len, TRB_TRANSFER_EVENT, slot, dci);
			set_ep_state(model_out_ctx(NULL, slot, dci), EP_STATE_HALTED);
			return MODEL_STALL;
		}
		first = false;
		model.trbs++;
		if (dci >= 2 && (type == TRB_DATA || type == TRB_NORMAL) && !shortpkt)
			e->toggle ^= packets(slot, dci, (uint32_t)r) & 1;
		if ((type == TRB_DATA || type == TRB_NORMAL) && (uint32_t)r < len) {
			residual = len - (uint32_t)r;
			if (!shortpkt && (ctl & TRB_ISP)) {
				model_post_event(at, CC_SHORT_PACKET, residual, TRB_TRANSFER_EVENT, slot, dci);
				reported = true;
			}
			shortpkt = true;
		}
		if (ctl & TRB_IOC) {
			if (!reported)
				model_post_event(at, shortpkt ? CC_SHORT_PACKET : CC_SUCCESS, residual, TRB_TRANSFER_EVENT, slot,
					   dci);
			else if (model.event_after_short)
				model_post_event(at, CC_SHORT_PACKET, len, TRB_TRANSFER_EVENT, slot, dci);
		}
		at += sizeof(*t);
		if (!(ctl & TRB_CH))
			break;
	}
	/* the TRB after the TD; a link right there is followed next time */
	e->deq = at;
	e->ccs = ccs;
	model.tds++;
	return 0;
}

void model_run_transfers(unsigned slot, unsigned dci)
{
	uint32_t *ctx = model_out_ctx(NULL, slot, dci);

	if (ep_state(ctx) == 0 || ep_state(ctx) == EP_STATE_HALTED)
		return;
	set_ep_state(ctx, 1);
	while (run_td(slot, dci) == 0)
		;
}


/* decode.c — execute a decoding plan over packet bytes: aligned and bit-packed integers
 * (both byte orders), floats, strings, text arrays, arrays/sequences, variants.  Every
 * read is bounded by the cursor's limit (the packet's content size). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "view/plan.h"

static inline uint64_t read_le_bits(const uint8_t *base, uint64_t pos, unsigned bits)
{
	const uint8_t *p = base + (pos >> 3);
	unsigned sh = pos & 7;
	unsigned nbytes = (sh + bits + 7) >> 3;
	uint64_t v = 0;
	unsigned n = nbytes > 8 ? 8 : nbytes;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	v >>= sh;
	if (nbytes > 8)
		v |= (uint64_t)p[8] << (64 - sh);
	if (bits < 64)
		v &= (UINT64_C(1) << bits) - 1;
	return v;
}

static inline uint64_t read_be_bits(const uint8_t *base, uint64_t pos, unsigned bits)
{
	const uint8_t *p = base + (pos >> 3);
	unsigned sh = pos & 7;
	unsigned nbytes = (sh + bits + 7) >> 3;
	unsigned __int128 acc = 0;
	for (unsigned i = 0; i < nbytes; i++)
		acc = acc << 8 | p[i];
	acc >>= nbytes * 8 - sh - bits;
	uint64_t v = (uint64_t)acc;
	if (bits < 64)
		v &= (UINT64_C(1) << bits) - 1;
	return v;
}

static inline int push(struct vbuf *out, uint64_t u, const uint8_t *p)
{
	if (out->n == out->cap) {
		size_t nc = out->cap ? out->cap * 2 : 256;
		struct val *nv = realloc(out->v, nc * sizeof(*nv));
		if (!nv)
			return -1;
		out->v = nv;
		out->cap = nc;
	}
	out->v[out->n].u = u;
	out->v[out->n].p = p;
	out->n++;
	return 0;
}

#define ALIGN_POS(pos, a) (((pos) + (a) - 1) & ~(uint64_t)((a) - 1))

static void set_role(struct dec_state *st, const struct op *o, uint64_t v)
{
	if (o->role == ROLE_CLOCK) {
		unsigned bits = o->bits;
		if (bits >= 64) {
			st->clock = v;
		} else {
			uint64_t mask = (UINT64_C(1) << bits) - 1;
			uint64_t low = st->clock & mask;
			uint64_t nv = (st->clock & ~mask) | v;
			if (v < low)
				nv += mask + 1;
			st->clock = nv;
		}
	} else if (o->role == ROLE_TS_BEGIN) {
		st->clock = v;
	}
	st->role[o->role] = v;
	st->role_set |= 1u << o->role;
}

int plan_exec(const struct plan *p, struct cursor *cur, struct dec_state *st, struct vbuf *out, char *err,
	      size_t errlen)
{
	struct {
		uint32_t begin;
		uint64_t left;
	} stack[PLAN_MAX_NEST + 2];
	int sp = 0;
	const struct op *ops = p->ops;
	uint32_t pc = 0, n = p->n;
	uint64_t pos = cur->pos, limit = cur->limit;
	const uint8_t *base = cur->base;

	while (pc < n) {
		const struct op *o = &ops[pc];
		switch (o->kind) {
		case OP_INT: {
			pos = ALIGN_POS(pos, o->align);
			unsigned bits = o->bits;
			if (pos + bits > limit)
				goto overflow;
			uint64_t v;
			if (!(pos & 7) && !(o->flags & OPF_BE) && (bits & 7) == 0) {
				const uint8_t *q = base + (pos >> 3);
				switch (bits) {
				case 8: v = q[0]; break;
				case 16: { uint16_t t; memcpy(&t, q, 2); v = t; break; }
				case 32: { uint32_t t; memcpy(&t, q, 4); v = t; break; }
				case 64: memcpy(&v, q, 8); break;
				default: v = read_le_bits(base, pos, bits); break;
				}
			} else if (o->flags & OPF_BE) {
				v = read_be_bits(base, pos, bits);
			} else {
				v = read_le_bits(base, pos, bits);
			}
			pos += bits;
			if ((o->flags & OPF_SIGNED) && bits < 64) {
				uint64_t m = UINT64_C(1) << (bits - 1);
				v = (v ^ m) - m;
			}
			if (o->reg >= 0)
				st->regs[o->reg] = v;
			if (o->role)
				set_role(st, o, v);
			if (out && push(out, v, NULL))
				goto oom;
			pc++;
			break;
		}
		case OP_FLOAT: {
			pos = ALIGN_POS(pos, o->align);
			if (pos + o->bits > limit)
				goto overflow;
			uint64_t v = (o->flags & OPF_BE) ? read_be_bits(base, pos, o->bits) : read_le_bits(base, pos, o->bits);
			pos += o->bits;
			if (out && push(out, v, NULL))
				goto oom;
			pc++;
			break;
		}
		case OP_STRING: {
			pos = ALIGN_POS(pos, 8);
			if (pos >= limit)
				goto overflow;
			const uint8_t *s = base + (pos >> 3);
			size_t avail = (size_t)((limit - pos) >> 3);
			const uint8_t *z = memchr(s, 0, avail);
			if (!z) {
				snprintf(err, errlen, "unterminated string (field '%s')", o->name ? o->name : "?");
				goto fail;
			}
			size_t len = (size_t)(z - s);
			pos += (uint64_t)(len + 1) * 8;
			if (out && push(out, len, s))
				goto oom;
			pc++;
			break;
		}
		case OP_TEXT: {
			pos = ALIGN_POS(pos, o->align);
			uint64_t len = o->len_reg >= 0 ? st->regs[o->len_reg] : o->len;
			if (len > (limit - (pos < limit ? pos : limit)) / 8 || pos > limit)
				goto overflow;
			if (out && push(out, len, base + (pos >> 3)))
				goto oom;
			pos += len * 8;
			pc++;
			break;
		}
		case OP_STRUCT:
			pos = ALIGN_POS(pos, o->align);
			pc++;
			break;
		case OP_STRUCT_END:
			pc++;
			break;
		case OP_ARRAY: {
			uint64_t len = o->len_reg >= 0 ? st->regs[o->len_reg] : o->len;
			pos = ALIGN_POS(pos, o->align);
			if (pos > limit || len > limit - pos)
				goto overflow; /* every element takes at least one bit */
			if (o->role == ROLE_UUID && pos + 128 <= limit && !(pos & 7))
				st->uuid = base + (pos >> 3);
			if (out && push(out, len, NULL))
				goto oom;
			if (!len) {
				pc = o->next;
				break;
			}
			if (sp >= PLAN_MAX_NEST) {
				snprintf(err, errlen, "arrays nested too deeply");
				goto fail;
			}
			stack[sp].begin = pc;
			stack[sp].left = len;
			sp++;
			pc++;
			break;
		}
		case OP_ARRAY_END:
			if (sp <= 0) {
				snprintf(err, errlen, "internal: unbalanced array");
				goto fail;
			}
			if (--stack[sp - 1].left) {
				pc = stack[sp - 1].begin + 1;
			} else {
				sp--;
				pc++;
			}
			break;
		case OP_VARIANT: {
			uint64_t tag = st->regs[o->tag_reg];
			uint32_t opt = UINT32_MAX;
			for (uint32_t i = 0; i < o->ncases; i++) {
				const struct var_case *c = &o->cases[i];
				if (o->tag_signed ? ((int64_t)tag >= c->lo && (int64_t)tag <= c->hi)
						  : (tag >= (uint64_t)c->lo && tag <= (uint64_t)c->hi)) {
					opt = c->opt;
					break;
				}
			}
			if (opt == UINT32_MAX) {
				snprintf(err, errlen, "variant '%s': no option for tag value %lld", o->name ? o->name : "?",
					 (long long)tag);
				goto fail;
			}
			if (out && push(out, opt, NULL))
				goto oom;
			pc = o->opts[opt];
			break;
		}
		case OP_OPT_END:
			pc = o->next;
			break;
		default:
			snprintf(err, errlen, "internal: bad op");
			goto fail;
		}
	}
	cur->pos = pos;
	return 0;
overflow:
	snprintf(err, errlen, "field '%s' extends past the packet content (bit %llu, content %llu bits)",
		 ops[pc].name ? ops[pc].name : "?", (unsigned long long)pos, (unsigned long long)limit);
	return -1;
oom:
	snprintf(err, errlen, "out of memory");
fail:
	return -1;
}

/* metadata.c — the TSDL (CTF 1.8) metadata of a scry trace, written as lttng-modules
 * writes a kernel trace's metadata: byte-aligned typealiases, the trace/env/clock blocks,
 * one stream class per channel (packet context and event header as in docs/FORMAT.md),
 * each followed by the blocks of its events.  Field names get LTTng's leading underscore, which
 * readers strip (it also keeps TSDL keywords such as "string" usable as field names). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctf/metadata.h"
#include "util/lex.h"
#include "util/version.h"

static void uuid_str(const uint8_t u[16], char out[37])
{
	snprintf(out, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
		 u[12], u[13], u[14], u[15]);
}

/* A TSDL string literal: quotes, backslashes and control characters escaped. */
static void put_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		switch (*p) {
		case '"':  fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fputc(' ', f);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

static void put_int(FILE *f, unsigned bytes, int is_signed, int utf8, unsigned base)
{
	fprintf(f, "integer { size = %u; align = 8; signed = %d; encoding = %s; base = %u; }",
		bytes * 8, is_signed ? 1 : 0, utf8 ? "UTF8" : "none", base == 16 || base == 8 ? base : 10);
}

static int valid_int_size(unsigned size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

static int put_desc(FILE *f, const char *evname, const struct scry_struct_desc *sd, char *err, size_t errlen,
		    int depth);

/* What a struct with tails appends after its fixed fields (structs.h):
 * `uint32 _NAME_length; ELEM _NAME[_NAME_length];` or `string _NAME;` */
static int put_tails(FILE *f, const char *evname, const struct scry_struct_desc *sd, char *err, size_t errlen,
		     int depth)
{
	for (unsigned k = 0; k < sd->ntails; k++) {
		const struct scry_struct_tail *t = &sd->tails[k];

		if (!scry_is_ident(t->name)) {
			snprintf(err, errlen, "event %s: struct %s: bad tail %s", evname, sd->name, t->name);
			return -1;
		}
		fputc(' ', f);
		if (t->kind == SCRY_TAIL_STRING) {
			fprintf(f, "string _%s;", t->name);
			continue;
		}
		put_int(f, 4, 0, 0, 10);
		fprintf(f, " __%s_length; ", t->name);
		if (t->kind == SCRY_TAIL_BYTES)
			put_int(f, 1, 0, 0, 16);
		else if (!t->elem || put_desc(f, evname, t->elem, err, errlen, depth + 1) < 0)
			return -1;
		fprintf(f, " _%s[ __%s_length ];", t->name, t->name);
	}
	return 0;
}

/* A struct type of structs.h (fields cover the size exactly), its tails appended. */
static int put_desc(FILE *f, const char *evname, const struct scry_struct_desc *sd, char *err, size_t errlen,
		    int depth)
{
	unsigned off = 0;

	if (!sd->nfields || depth > 4) {
		snprintf(err, errlen, "event %s: struct %s: no usable description", evname, sd->name);
		return -1;
	}
	if (sd->nfields == 1 && !sd->ntails && !sd->fields[0].count && !strcmp(sd->fields[0].name, sd->name)) {
		/* a scalar element type ("int") */
		put_int(f, sd->fields[0].size, sd->fields[0].is_signed, 0, sd->fields[0].base);
		return 0;
	}
	fputs("struct {", f);
	for (unsigned k = 0; k < sd->nfields; k++) {
		const struct scry_struct_field *sf = &sd->fields[k];

		if (sf->offset != off || !valid_int_size(sf->size) || !scry_is_ident(sf->name)) {
			snprintf(err, errlen, "event %s: struct %s: bad field %s", evname, sd->name, sf->name);
			return -1;
		}
		fputc(' ', f);
		if (sf->big_endian)
			fprintf(f, "integer { size = %u; align = 8; signed = %s; byte_order = be; base = %u; }",
				sf->size * 8, sf->is_signed ? "true" : "false", sf->base ? sf->base : 10);
		else
			put_int(f, sf->size, sf->is_signed, sf->is_text, sf->base);
		if (sf->count)
			fprintf(f, " _%s[%u];", sf->name, sf->count);
		else
			fprintf(f, " _%s;", sf->name);
		off += sf->size * (sf->count ? sf->count : 1);
	}
	if (off != sd->size) {
		snprintf(err, errlen, "event %s: struct %s: fields cover %u of %u bytes", evname, sd->name,
			 off, sd->size);
		return -1;
	}
	if (put_tails(f, evname, sd, err, errlen, depth) < 0)
		return -1;
	fputs(" }", f);
	return 0;
}

/* The element struct of a STRUCTSEQ field. */
static int put_struct(FILE *f, const struct scry_event *ev, const struct scry_field *fd, char *err, size_t errlen)
{
	if (!fd->sdesc) {
		snprintf(err, errlen, "event %s: field %s: no struct description", ev->name, fd->name);
		return -1;
	}
	return put_desc(f, ev->name, fd->sdesc, err, errlen, 0);
}

/* One payload field; fields[] is the event's field array (for SEQ length names). */
static int put_field(FILE *f, const struct scry_event *ev, unsigned i, char *err, size_t errlen)
{
	const struct scry_field *fd = &ev->fields[i];

	if (!scry_is_ident(fd->name)) {
		snprintf(err, errlen, "event %s: invalid field name \"%s\"", ev->name,
			 fd->name ? fd->name : "");
		return -1;
	}
	if (fd->type != SCRY_F_STRING && fd->type != SCRY_F_STRSEQ && fd->type != SCRY_F_STRUCTSEQ &&
	    !valid_int_size(fd->size)) {
		snprintf(err, errlen, "event %s: field %s: invalid size %u", ev->name, fd->name,
			 fd->size);
		return -1;
	}
	fputs("\t\t", f);
	switch (fd->type) {
	case SCRY_F_INT:
		if (fd->nenums) {          /* a CTF enum: a C enum's names (uprobes), LTTng's ctf_enum */
			fputs("enum : ", f);
			put_int(f, fd->size, fd->is_signed, 0, fd->base);
			fputs(" {", f);
			for (unsigned k = 0; k < fd->nenums; k++) {
				fputs(k ? ", " : " ", f);
				put_str(f, fd->enums[k].name);
				fprintf(f, " = %lld", (long long)fd->enums[k].value);
			}
			fprintf(f, " } _%s;\n", fd->name);
			break;
		}
		put_int(f, fd->size, fd->is_signed, 0, fd->base);
		fprintf(f, " _%s;\n", fd->name);
		break;
	case SCRY_F_STRING:
		fprintf(f, "string _%s;\n", fd->name);
		break;
	case SCRY_F_TEXT:
		put_int(f, 1, 0, 1, 10);
		fprintf(f, " _%s[%u];\n", fd->name, fd->count);
		break;
	case SCRY_F_ARRAY:
		put_int(f, fd->size, fd->is_signed, 0, fd->base);
		fprintf(f, " _%s[%u];\n", fd->name, fd->count);
		break;
	case SCRY_F_SEQ:
	case SCRY_F_STRSEQ:
	case SCRY_F_STRUCTSEQ: {
		int lf = fd->length_field;

		if (lf < 0 || (unsigned)lf >= i || ev->fields[lf].type != SCRY_F_INT ||
		    ev->fields[lf].is_signed) {
			snprintf(err, errlen,
				 "event %s: sequence %s: length field must be an earlier unsigned integer",
				 ev->name, fd->name);
			return -1;
		}
		if (fd->type == SCRY_F_SEQ)
			put_int(f, fd->size, fd->is_signed, 0, fd->base);
		else if (fd->type == SCRY_F_STRSEQ)
			fputs("string", f);
		else if (put_struct(f, ev, fd, err, errlen) < 0)
			return -1;
		fprintf(f, " _%s[ _%s ];\n", fd->name, ev->fields[lf].name);
		break;
	}
	default:
		snprintf(err, errlen, "event %s: field %s: unknown type %d", ev->name, fd->name,
			 (int)fd->type);
		return -1;
	}
	return 0;
}

static void put_contexts(FILE *f, uint64_t mask)
{
	fputs("\tevent.context := struct {\n", f);
	for (int c = 0; c < SCRY_CTX_NR; c++) {
		const struct scry_context_desc *d;

		if (!(mask & (1ULL << c)) || !(d = scry_context((enum scry_ctx)c)))
			continue;
		fputs("\t\t", f);
		if (d->type == SCRY_F_TEXT) {
			put_int(f, 1, 0, 1, 10);
			fprintf(f, " _%s[%u];\n", d->name, d->count);
		} else if (d->type == SCRY_F_SEQ) {
			/* lttng-modules' two fields: "_NAME_length" (unsigned int), "NAME" (unsigned long, hex) */
			put_int(f, 4, 0, 0, 10);
			fprintf(f, " __%s_length;\n\t\t", d->name);
			put_int(f, d->size, 0, 0, 16);
			fprintf(f, " _%s[ __%s_length ];\n", d->name, d->name);
		} else {
			put_int(f, d->size, d->is_signed, 0, 10);
			fprintf(f, " _%s;\n", SCRY_CONTEXT_FIELD(d));
		}
	}
	fputs("\t};\n", f);
}

/* A stream class's contexts and events are ones the metadata can describe. */
static int check_stream(const struct ctf_stream_class *sc, size_t id, char *err, size_t errlen)
{
	if (sc->nevents > 65536) {
		snprintf(err, errlen, "stream %zu: too many events (%zu): event ids are 16-bit", id, sc->nevents);
		return -1;
	}
	if (sc->ctx_mask >> (SCRY_CTX_NR - 1) >> 1) {   /* (all 64 bits are contexts now) */
		snprintf(err, errlen, "unknown context bits in mask 0x%llx", (unsigned long long)sc->ctx_mask);
		return -1;
	}
	for (int c = 0; c < SCRY_CTX_NR; c++) {
		const struct scry_context_desc *d;

		if (!(sc->ctx_mask & (1ULL << c)))
			continue;
		d = scry_context((enum scry_ctx)c);
		if (!d || !scry_is_ident(SCRY_CONTEXT_FIELD(d)) ||
		    (d->type != SCRY_F_TEXT && d->type != SCRY_F_SEQ && !valid_int_size(d->size))) {
			snprintf(err, errlen, "context %d has no usable description", c);
			return -1;
		}
	}
	return 0;
}

/* A stream class and its events' blocks. */
static int put_stream(FILE *f, const struct ctf_stream_class *sc, size_t id, char *err, size_t errlen)
{
	fprintf(f, "stream {\n"
		   "\tid = %zu;\n"
		   "\tevent.header := struct event_header_scry;\n"
		   "\tpacket.context := struct packet_context;\n", id);
	if (sc->ctx_mask)
		put_contexts(f, sc->ctx_mask);
	fputs("};\n\n", f);

	for (size_t i = 0; i < sc->nevents; i++) {
		const struct scry_event *ev = sc->events[i];

		if (!ev || !ev->name || !*ev->name) {
			snprintf(err, errlen, "event %zu has no name", i);
			return -1;
		}
		fputs("event {\n\tname = ", f);
		put_str(f, ev->name);
		fprintf(f, ";\n\tid = %zu;\n\tstream_id = %zu;\n", i, id);
		if (ev->emf_uri) {
			fputs("\tmodel.emf.uri = ", f);
			put_str(f, ev->emf_uri);
			fputs(";\n", f);
		}
		fputs("\tfields := struct {\n", f);
		for (unsigned j = 0; j < ev->nfields; j++)
			if (put_field(f, ev, j, err, errlen) < 0)
				return -1;
		fputs("\t};\n", f);
		fputs("};\n\n", f);
	}
	return 0;
}

char *ctf_metadata_text(const struct ctf_trace_info *ti, char *err, size_t errlen)
{
	char *buf = NULL, uuid[37], cuuid[37];
	size_t len = 0;
	FILE *f = NULL;
	int ok = 0;

	if (!ti->nstreams) {
		snprintf(err, errlen, "a trace needs at least one channel");
		return NULL;
	}
	for (size_t k = 0; k < ti->nstreams; k++)
		if (check_stream(&ti->streams[k], k, err, errlen))
			return NULL;
	f = open_memstream(&buf, &len);
	if (!f) {
		snprintf(err, errlen, "open_memstream: %s", strerror(errno));
		return NULL;
	}
	uuid_str(ti->uuid, uuid);
	uuid_str(ti->clock_uuid, cuuid);

	fputs("/* CTF 1.8 */\n\n", f);
	fputs("typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
	      "typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
	      "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
	      "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
	      "typealias integer { size = 64; align = 8; signed = false; } := unsigned long;\n"
	      "typealias integer { size = 5; align = 1; signed = false; } := uint5_t;\n"
	      "typealias integer { size = 27; align = 1; signed = false; } := uint27_t;\n\n", f);

	fprintf(f, "trace {\n"
		   "\tmajor = 1;\n"
		   "\tminor = 8;\n"
		   "\tuuid = \"%s\";\n"
		   "\tbyte_order = le;\n"
		   "\tpacket.header := struct {\n"
		   "\t\tuint32_t magic;\n"
		   "\t\tuint8_t  uuid[16];\n"
		   "\t\tuint32_t stream_id;\n"
		   "\t\tuint64_t stream_instance_id;\n"
		   "\t};\n"
		   "};\n\n", uuid);

	fputs("env {\n\thostname = ", f);
	put_str(f, ti->hostname);
	fputs(";\n\tdomain = \"kernel\";\n\tsysname = ", f);
	put_str(f, ti->sysname);
	fputs(";\n\tkernel_release = ", f);
	put_str(f, ti->kernel_release);
	fputs(";\n\tkernel_version = ", f);
	put_str(f, ti->kernel_version);
	/* The lttng-modules version whose event layout scry follows: Trace Compass picks its
	 * kernel event layout from these (docs/FORMAT.md, "Environment"); scry's own name and
	 * version follow in scry_* fields. */
	fprintf(f, ";\n\ttracer_name = \"lttng-modules\";\n"
		   "\ttracer_major = %d;\n"
		   "\ttracer_minor = %d;\n"
		   "\ttracer_patchlevel = %d;\n"
		   "\tscry_tracer_name = \"scry\";\n"
		   "\tscry_tracer_major = %d;\n"
		   "\tscry_tracer_minor = %d;\n"
		   "\tscry_tracer_patchlevel = %d;\n"
		   "\ttrace_buffering_scheme = \"global\";\n"
		   "\ttrace_name = ",
		SCRY_LTTNG_MODULES_MAJOR, SCRY_LTTNG_MODULES_MINOR, SCRY_LTTNG_MODULES_PATCHLEVEL,
		SCRY_VERSION_MAJOR, SCRY_VERSION_MINOR, SCRY_VERSION_PATCH);
	put_str(f, ti->trace_name);
	for (size_t i = 0; i < ti->ncgroups; i++) {
		fprintf(f, ";\n\tscry_cgroup_%llu = ", (unsigned long long)ti->cgroups[i].id);
		put_str(f, ti->cgroups[i].container);
	}
	fputs(";\n\ttrace_creation_datetime = ", f);
	put_str(f, ti->creation_datetime);
	fputs(";\n};\n\n", f);

	const char *cname = ti->clock_name ? ti->clock_name : "monotonic";

	fprintf(f, "clock {\n"
		   "\tname = \"%s\";\n"
		   "\tuuid = \"%s\";\n"
		   "\tdescription = \"%s\";\n"
		   "\tfreq = 1000000000; /* Frequency, in Hz */\n"
		   "\tprecision = 1;\n"
		   "\t/* clock value offset from Epoch is: offset_s * freq + offset */\n"
		   "\toffset_s = %lld;\n"
		   "\toffset = %llu;\n"
		   "\tabsolute = FALSE;\n"
		   "};\n\n",
		cname, cuuid, ti->clock_description ? ti->clock_description : "Monotonic Clock",
		(long long)ti->clock_offset_s, (unsigned long long)ti->clock_offset_ns);

	/* LTTng's type names, mapped to the trace's clock */
	fprintf(f, "typealias integer {\n"
		   "\tsize = 27; align = 1; signed = false;\n"
		   "\tmap = clock.%s.value;\n"
		   "} := uint27_clock_monotonic_t;\n\n"
		   "typealias integer {\n"
		   "\tsize = 32; align = 8; signed = false;\n"
		   "\tmap = clock.%s.value;\n"
		   "} := uint32_clock_monotonic_t;\n\n"
		   "typealias integer {\n"
		   "\tsize = 64; align = 8; signed = false;\n"
		   "\tmap = clock.%s.value;\n"
		   "} := uint64_clock_monotonic_t;\n\n", cname, cname, cname);

	fputs("struct packet_context {\n"
	      "\tuint64_clock_monotonic_t timestamp_begin;\n"
	      "\tuint64_clock_monotonic_t timestamp_end;\n"
	      "\tuint64_t content_size;\n"
	      "\tuint64_t packet_size;\n"
	      "\tuint64_t packet_seq_num;\n"
	      "\tunsigned long events_discarded;\n"
	      "\tuint32_t cpu_id;\n"
	      "};\n\n"
	      "/* scry: 16-bit id and full 64-bit timestamp in every event, packed */\n"
	      "struct event_header_scry {\n"
	      "\tuint16_t id;\n"
	      "\tuint64_clock_monotonic_t timestamp;\n"
	      "} align(8);\n\n", f);

	for (size_t k = 0; k < ti->nstreams; k++)
		if (put_stream(f, &ti->streams[k], k, err, errlen))
			goto cleanup;
	if (fflush(f) != 0 || ferror(f)) {
		snprintf(err, errlen, "building metadata: %s", strerror(errno ? errno : ENOMEM));
		goto cleanup;
	}
	ok = 1;
cleanup:
	if (fclose(f) != 0 && ok) {
		snprintf(err, errlen, "building metadata: %s", strerror(errno));
		ok = 0;
	}
	if (!ok) {
		free(buf);
		return NULL;
	}
	return buf;
}

int ctf_metadata_write(struct scry_dirh *kdir, const struct ctf_trace_info *ti, char *err, size_t errlen)
{
	char *text = ctf_metadata_text(ti, err, errlen);
	int ret;

	if (!text)
		return -EINVAL;
	/* written under a hidden name (readers skip it), renamed when whole: a trace never has
	 * a partial metadata file, whatever stops the writer */
	ret = scry_dirh_write_file(kdir, "metadata", text, strlen(text), true, err, errlen);
	free(text);
	return ret;
}

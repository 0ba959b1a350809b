/* flamegraph.c — a self-contained interactive SVG flame graph (Brendan Gregg's layout, drawn
 * here): the samples merged into a tree of frames by name from the command name (the first
 * level) to the leaves, each frame a rect whose width is its share of the samples, roots at
 * the bottom, siblings in name order; <title> gives the count and percentage; a small
 * script zooms on a click (the frame's ancestors kept, its subtree widened) and searches by
 * regular expression (matches highlighted, their share shown).  Frames narrower than
 * 0.1 px are left out (their samples are in their parent's width). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "profile/profile.h"

#define WIDTH 1200.0
#define PAD 10.0
#define FRAME_H 16.0
#define FONT 12
#define MIN_W 0.1

enum { K_USER, K_KERNEL, K_COMM, K_ROOT };

struct node {
	uint32_t parent, name, kind;
	uint64_t count;
	uint32_t depth;
	uint32_t first, next;   /* children list (index + 1) */
	double x;               /* samples before it at its depth */
};

struct tree {
	const struct scry_prof *p;
	struct node *n;
	size_t len, cap;
	uint32_t *slots;        /* (parent, name, kind) -> index + 1 */
	size_t nslots;
	uint32_t maxdepth;
};

static uint64_t key_hash(uint32_t parent, uint32_t name, uint32_t kind)
{
	uint64_t h = ((uint64_t)parent << 32 | name) * 0x9e3779b97f4a7c15ULL;
	return (h ^ (h >> 29) ^ kind) * 0xbf58476d1ce4e5b9ULL;
}

static int tree_fit(struct tree *t)
{
	if (t->len == t->cap) {
		size_t nc = t->cap ? 2 * t->cap : 256;
		struct node *nn = realloc(t->n, nc * sizeof(*nn));
		if (!nn)
			return -ENOMEM;
		t->n = nn;
		t->cap = nc;
	}
	if (2 * (t->len + 1) > t->nslots) {
		size_t ns = t->nslots ? 2 * t->nslots : 512;
		uint32_t *s = calloc(ns, sizeof(*s));
		if (!s)
			return -ENOMEM;
		for (size_t i = 1; i < t->len; i++) {    /* node 0, the root, is never looked up */
			size_t j = key_hash(t->n[i].parent, t->n[i].name, t->n[i].kind) & (ns - 1);
			while (s[j])
				j = (j + 1) & (ns - 1);
			s[j] = (uint32_t)i + 1;
		}
		free(t->slots);
		t->slots = s;
		t->nslots = ns;
	}
	return 0;
}

/* The child (name, kind) of parent, made when new; UINT32_MAX when out of memory. */
static uint32_t child(struct tree *t, uint32_t parent, uint32_t name, uint32_t kind)
{
	size_t j;

	if (tree_fit(t))
		return UINT32_MAX;
	for (j = key_hash(parent, name, kind) & (t->nslots - 1); t->slots[j]; j = (j + 1) & (t->nslots - 1)) {
		struct node *c = &t->n[t->slots[j] - 1];
		if (c->parent == parent && c->name == name && c->kind == kind)
			return t->slots[j] - 1;
	}
	uint32_t ix = (uint32_t)t->len++;
	t->n[ix] = (struct node){ .parent = parent, .name = name, .kind = kind, .depth = t->n[parent].depth + 1 };
	t->n[ix].next = t->n[parent].first;
	t->n[parent].first = ix + 1;
	t->slots[j] = ix + 1;
	if (t->n[ix].depth > t->maxdepth)
		t->maxdepth = t->n[ix].depth;
	return ix;
}

static int build(struct tree *t)
{
	const struct scry_prof *p = t->p;

	if (tree_fit(t))
		return -ENOMEM;
	t->n[0] = (struct node){ .kind = K_ROOT };
	t->len = 1;
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct scry_prof_sample *s = &p->samples[i];
		const uint32_t *fr = scry_prof_frames(p, s);
		uint32_t cur = child(t, 0, s->comm, K_COMM);

		if (cur == UINT32_MAX)
			return -ENOMEM;
		t->n[0].count += s->count;
		t->n[cur].count += s->count;
		for (uint32_t k = s->nframes; k-- > 0;) {
			const struct scry_prof_frame *f = &p->frames[fr[k]];

			if ((cur = child(t, cur, f->name, f->kernel ? K_KERNEL : K_USER)) == UINT32_MAX)
				return -ENOMEM;
			t->n[cur].count += s->count;
		}
	}
	return 0;
}

static const char *label(const struct tree *t, const struct node *n, char *buf, size_t len)
{
	if (n->kind == K_ROOT)
		snprintf(buf, len, "all");
	else
		snprintf(buf, len, "%s%s", scry_prof_s(t->p, n->name), n->kind == K_KERNEL ? "_[k]" : "");
	return buf;
}

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\t')
				fputc(*s, f);
		}
	}
}

static const struct tree *g_sort;
static int by_label(const void *a, const void *b)
{
	const struct node *x = &g_sort->n[*(const uint32_t *)a], *y = &g_sort->n[*(const uint32_t *)b];
	char bx[512], by[512];

	return strcmp(label(g_sort, x, bx, sizeof(bx)), label(g_sort, y, by, sizeof(by)));
}

/* FlameGraph's "hot" palette, from a hash of the name (stable across runs); kernel frames
 * orange, command names grey-blue. */
/* A frame's fill, stable per name: warm hues for CPU time (user red-orange, kernel orange),
 * blue ones for time blocked (FlameGraph's off-CPU convention), the command and root grey-blue. */
static void color(const char *name, uint32_t kind, bool offcpu, char *buf, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (const char *c = name; *c; c++)
		h = (h ^ (unsigned char)*c) * 0x100000001b3ULL;
	unsigned v1 = h & 0xff, v2 = (h >> 8) & 0xff, v3 = (h >> 16) & 0xff;
	if (offcpu && kind == K_KERNEL)
		snprintf(buf, len, "rgb(%u,%u,%u)", 100 + v1 % 60, 140 + v2 % 60, 210 + v3 % 45);
	else if (offcpu && kind != K_COMM && kind != K_ROOT)
		snprintf(buf, len, "rgb(%u,%u,%u)", v1 % 60, 90 + v2 % 90, 190 + v3 % 65);
	else if (kind == K_KERNEL)
		snprintf(buf, len, "rgb(%u,%u,%u)", 200 + v1 % 55, 110 + v2 % 60, 30 + v3 % 30);
	else if (kind == K_COMM || kind == K_ROOT)
		snprintf(buf, len, "rgb(%u,%u,%u)", 160 + v1 % 30, 170 + v2 % 30, 200 + v3 % 40);
	else
		snprintf(buf, len, "rgb(%u,%u,%u)", 205 + v1 % 50, v2 % 230, v3 % 55);
}

static const char script[] =
	"<script type=\"text/ecmascript\"><![CDATA[\n"
	"'use strict';\n"
	"var svg = document.documentElement, W = " "%.1f" ", P = " "%.1f" ";\n"
	"var frames = Array.prototype.slice.call(document.querySelectorAll('g.f'));\n"
	"frames.forEach(function (g) { var r = g.querySelector('rect');\n"
	"  g.ox = +r.getAttribute('x'); g.ow = +r.getAttribute('width'); g.oy = +r.getAttribute('y');\n"
	"  g.onclick = function () { zoom(g); }; });\n"
	"function fit(g, x, w) { var r = g.querySelector('rect'), t = g.querySelector('text');\n"
	"  r.setAttribute('x', x); r.setAttribute('width', w); t.setAttribute('x', x + 3);\n"
	"  var n = g.getAttribute('data-n'), m = Math.floor((w - 6) / 7);\n"
	"  t.textContent = m >= n.length ? n : (m > 2 ? n.substr(0, m - 2) + '..' : ''); }\n"
	"function zoom(z) { var x0 = z.ox, w0 = z.ow, k = (W - 2 * P) / w0;\n"
	"  frames.forEach(function (g) {\n"
	"    var inside = g.ox >= x0 - 1e-6 && g.ox + g.ow <= x0 + w0 + 1e-6 && g.oy <= z.oy;\n"
	"    var below = g.oy > z.oy && g.ox <= x0 + 1e-6 && g.ox + g.ow >= x0 + w0 - 1e-6;\n"
	"    if (inside) { g.style.display = ''; fit(g, P + (g.ox - x0) * k, g.ow * k); }\n"
	"    else if (below) { g.style.display = ''; g.style.opacity = 0.6; fit(g, P, W - 2 * P); }\n"
	"    else g.style.display = 'none'; });\n"
	"  document.getElementById('unzoom').style.opacity = 1; }\n"
	"function unzoom() { frames.forEach(function (g) { g.style.display = ''; g.style.opacity = '';\n"
	"  fit(g, g.ox, g.ow); }); document.getElementById('unzoom').style.opacity = 0; }\n"
	"function search() { var re = prompt('Search (regular expression):', ''); if (re === null) return;\n"
	"  var rx = new RegExp(re), hit = [], total = frames[0] ? frames[0].ow : 1;\n"
	"  frames.forEach(function (g) { var r = g.querySelector('rect');\n"
	"    if (!g.fill) g.fill = r.getAttribute('fill');\n"
	"    if (re && rx.test(g.getAttribute('data-n'))) { r.setAttribute('fill', 'rgb(230,0,230)'); hit.push(g); }\n"
	"    else r.setAttribute('fill', g.fill); });\n"
	"  hit.sort(function (a, b) { return a.ox - b.ox || b.ow - a.ow; });\n"
	"  var end = -1, w = 0; hit.forEach(function (g) { if (g.ox >= end - 1e-6) { w += g.ow; end = g.ox + g.ow; } });\n"
	"  document.getElementById('matched').textContent = re ? 'Matched: ' + (100 * w / total).toFixed(2) + '%%' : ''; }\n"
	"document.getElementById('unzoom').onclick = unzoom;\n"
	"document.getElementById('search').onclick = search;\n"
	"]]></script>\n";

int scry_prof_write_svg(const struct scry_prof *p, FILE *f, const char *title)
{
	struct tree t = { .p = p };
	uint32_t *order = NULL, *kids = NULL;
	double scale, height;
	size_t head = 0, tail = 0;
	int ret;

	if ((ret = build(&t)))
		goto out;
	scale = t.n[0].count ? (WIDTH - 2 * PAD) / (double)t.n[0].count : 0;
	height = (t.maxdepth + 1) * FRAME_H + 4 * PAD + 2 * FONT + 8;
	fprintf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n", WIDTH, height, WIDTH, height);
	fprintf(f, "<style>text { font-family: monospace; font-size: %dpx; fill: #000; } g.f:hover rect "
		"{ stroke: #000; stroke-width: 0.5; cursor: pointer; } #unzoom, #search { cursor: pointer; }</style>\n",
		FONT);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#f8f8f0\"/>\n", WIDTH, height);
	fprintf(f, "<text x=\"%.0f\" y=\"%d\" text-anchor=\"middle\" style=\"font-size:16px\">", WIDTH / 2, FONT + 10);
	xml_text(f, title);
	fprintf(f, "</text>\n<text id=\"unzoom\" x=\"%.0f\" y=\"%d\" style=\"opacity:0\">Reset Zoom</text>\n"
		"<text id=\"search\" x=\"%.0f\" y=\"%d\" text-anchor=\"end\">Search</text>\n"
		"<text id=\"matched\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\"></text>\n",
		PAD, FONT + 10, WIDTH - PAD, FONT + 10, WIDTH - PAD, height - PAD / 2);

	/* breadth first from the root: each node's x from its parent's and its elder siblings' */
	if (!(order = malloc(t.len * sizeof(*order))) || !(kids = malloc(t.len * sizeof(*kids)))) {
		ret = -ENOMEM;
		goto out;
	}
	order[tail++] = 0;
	t.n[0].x = 0;
	g_sort = &t;
	while (head < tail) {
		const struct node *n = &t.n[order[head++]];
		size_t nk = 0;
		double x = n->x;

		for (uint32_t c = n->first; c; c = t.n[c - 1].next)
			kids[nk++] = c - 1;
		qsort(kids, nk, sizeof(*kids), by_label);
		for (size_t i = 0; i < nk; i++) {
			t.n[kids[i]].x = x;
			x += (double)t.n[kids[i]].count;
			if ((double)t.n[kids[i]].count * scale >= MIN_W)
				order[tail++] = kids[i];
		}
	}
	fprintf(f, "<g id=\"frames\">\n");
	for (size_t i = 0; i < tail; i++) {
		const struct node *n = &t.n[order[i]];
		char lab[512], fill[32];
		double x = PAD + n->x * scale, w = (double)n->count * scale;
		double y = height - 2 * PAD - FONT - (n->depth + 1) * FRAME_H;
		int maxc = (int)((w - 6) / 7);
		size_t ln;

		label(&t, n, lab, sizeof(lab));
		color(lab, n->kind, p->offcpu, fill, sizeof(fill));
		fprintf(f, "<g class=\"f\" data-n=\"");
		xml_text(f, lab);
		fprintf(f, "\"><title>");
		xml_text(f, lab);
		fprintf(f, " (%llu %s, %.2f%%)</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
			"fill=\"%s\" rx=\"2\" ry=\"2\"/><text x=\"%.2f\" y=\"%.1f\">",
			(unsigned long long)n->count, p->offcpu ? "us" : "samples",
			t.n[0].count ? 100.0 * (double)n->count / (double)t.n[0].count : 0,
			x, y, w, FRAME_H - 1, fill, x + 3, y + FRAME_H - 4.5);
		ln = strlen(lab);
		if (maxc >= (int)ln) {
			xml_text(f, lab);
		} else if (maxc > 2) {
			lab[maxc - 2] = 0;
			xml_text(f, lab);
			fputs("..", f);
		}
		fprintf(f, "</text></g>\n");
	}
	fprintf(f, "</g>\n");
	fprintf(f, script, WIDTH, PAD);
	fprintf(f, "</svg>\n");
	ret = ferror(f) ? -EIO : 0;
out:
	free(order);
	free(kids);
	free(t.n);
	free(t.slots);
	return ret;
}

/* flame.c - interactive flame graphs: one self-contained SVG with its own
 * CSS and JavaScript (hover for details, click to zoom, search). Every
 * label is written into the SVG, cut to its box, so that viewers without
 * scripts show the names; the script only refits them when zooming. Every
 * name goes through ty_svg_escape. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/flame.h"
#include "tachy/profile-views.h"
#include "tachy/svg.h"
#include "tachy/utf8.h"

#define FRAME_H 16
#define CHAR_W 7 /* pixels a character of a label takes */
#define PAD 10
#define TOP 54
#define BOTTOM 34

struct ctx {
	const struct ty_profile_views_tree *t;
	const struct ty_flame_opts *o;
	FILE *fp;
	double scale;	  /* pixels per unit of weight */
	double max_delta; /* differential: largest |total - old_total| */
	int height, width;
	double min_w; /* pixels: narrower frames are not drawn */
	uint64_t root_n;
};

static const char style[] =
    "<style>\n"
    "text{font-family:Verdana,Helvetica,sans-serif;font-size:12px;fill:#000}\n"
    "#title{font-size:17px;text-anchor:middle}\n"
    ".f rect{stroke:#fff;stroke-width:0.5;rx:2;ry:2}\n"
    ".f text{font-size:11px;pointer-events:none}\n"
    ".f:hover rect{stroke:#000;stroke-width:0.8;cursor:pointer}\n"
    ".f.hl rect{fill:#e040e0}\n"
    ".f.hide{display:none}\n"
    ".f.dim{opacity:0.5}\n"
    ".btn{cursor:pointer;fill:#333}\n"
    ".btn:hover{text-decoration:underline}\n"
    "</style>\n";

/* The script: written for this file; it reads the frames' data attributes. */
static const char script[] =
    "<script><![CDATA[\n"
    "(function(){\n"
    "'use strict';\n"
    "var svg=document.documentElement, W=+svg.getAttribute('data-w'), P=10;\n"
    "var frames=[].slice.call(document.querySelectorAll('g.f'));\n"
    "var info=document.getElementById('info'), reset=document.getElementById('reset');\n"
    "var found=document.getElementById('found'), root=frames[0];\n"
    "frames.forEach(function(g){var r=g.querySelector('rect');\n"
    "  g.x0=+r.getAttribute('x'); g.w0=+r.getAttribute('width');\n"
    "  g.d=+g.getAttribute('data-d'); g.label=g.getAttribute('data-name');});\n"
    "function fit(g,x,w){var r=g.querySelector('rect'),t=g.querySelector('text');\n"
    "  r.setAttribute('x',x); r.setAttribute('width',w);\n"
    "  t.setAttribute('x',x+3); var n=Math.floor((w-6)/7);\n"
    "  t.textContent=n<3?'':(g.label.length<=n?g.label:g.label.slice(0,n-2)+'..');}\n"
    "function details(g){return g.getAttribute('data-info');}\n"
    "function zoom(z){var x0=z.x0,w0=z.w0,k=(W-2*P)/w0;\n"
    "  frames.forEach(function(g){g.classList.remove('hide','dim');\n"
    "    if(g.d<z.d){ "
    "if(g.x0<=x0+1e-6&&g.x0+g.w0>=x0+w0-1e-6){fit(g,P,W-2*P);g.classList.add('dim');}\n"
    "      else g.classList.add('hide'); return;}\n"
    "    if(g.x0>=x0-1e-6&&g.x0+g.w0<=x0+w0+1e-6){fit(g,P+(g.x0-x0)*k,g.w0*k);}\n"
    "    else g.classList.add('hide');});\n"
    "  reset.style.opacity=z===root?0:1;}\n"
    "frames.forEach(function(g){\n"
    "  g.addEventListener('mouseover',function(){info.textContent=details(g);});\n"
    "  g.addEventListener('mouseout',function(){info.textContent=' ';});\n"
    "  g.addEventListener('click',function(){zoom(g);});});\n"
    "reset.addEventListener('click',function(){zoom(root);});\n"
    "function search(){var re=prompt('Search (regular expression):','');\n"
    "  frames.forEach(function(g){g.classList.remove('hl');});\n"
    "  if(!re){found.textContent=' ';return;}\n"
    "  var rx; try{rx=new RegExp(re);}catch(e){found.textContent='bad expression';return;}\n"
    "  var hit=[],sum=0;\n"
    "  "
    "frames.forEach(function(g){if(g!==root&&rx.test(g.label)){g.classList.add('hl');hit.push(g);}}"
    ");\n"
    "  hit.forEach(function(g){for(var a=0;a<hit.length;a++){var h=hit[a];\n"
    "    if(h!==g&&h.d<g.d&&h.x0<=g.x0&&h.x0+h.w0>=g.x0+g.w0)return;} sum+=g.w0;});\n"
    "  found.textContent='Matched: '+(100*sum/root.w0).toFixed(2)+'%';}\n"
    "document.getElementById('search').addEventListener('click',search);\n"
    "document.addEventListener('keydown',function(e){if((e.ctrlKey||e.metaKey)&&e.key==='f'){e."
    "preventDefault();search();}});\n"
    "frames.forEach(function(g){fit(g,g.x0,g.w0);});\n"
    "})();\n"
    "]]></script>\n";

static unsigned
hash_name(const char *s)
{
	unsigned h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* A frame's colour by the verdict SHADE gave its function (level 0..1). */
static void
shade_colour(int verdict, double level, char *buf, size_t len)
{
	int v = (int)(60 + 160 * (level < 0 ? 0 : level > 1 ? 1 : level));

	if (verdict > 0)
		snprintf(buf, len, "rgb(255,%d,%d)", 255 - v, 255 - v);
	else if (verdict < 0)
		snprintf(buf, len, "rgb(%d,%d,255)", 255 - v, 255 - v);
	else
		snprintf(buf, len, "rgb(218,218,218)");
}

static void
colour(struct ctx *c, const struct ty_profile_views_node *n, char *buf, size_t len)
{
	if (c->o->old) {
		double d = n->total - n->old_total;
		int v = c->max_delta > 0 ? (int)(200 * fabs(d) / c->max_delta) : 0;
		if (d > 0)
			snprintf(buf, len, "rgb(255,%d,%d)", 255 - v, 255 - v);
		else if (d < 0)
			snprintf(buf, len, "rgb(%d,%d,255)", 255 - v, 255 - v);
		else
			snprintf(buf, len, "rgb(250,250,250)");
		return;
	}
	if (!n->name) {
		snprintf(buf, len, "rgb(240,200,160)");
		return;
	}
	if (n->state != TY_STATE_CPU) { /* off-CPU pseudo-frames: one blue per state */
		static const char *const blues[TY_NSTATES] = {"",
							      "rgb(110,160,230)",
							      "rgb(60,110,210)",
							      "rgb(120,90,200)",
							      "rgb(150,190,240)",
							      "rgb(140,150,170)"};
		snprintf(buf, len, "%s", n->state < TY_NSTATES ? blues[n->state] : "rgb(0,0,255)");
		return;
	}
	if (n->off > 0 && n->off * 2 >= n->total) { /* mostly off the CPU: blue */
		unsigned h = hash_name(n->name);
		int v = (int)(h % 60);
		snprintf(buf, len, "rgb(%d,%d,%d)", 80 + v, 140 + v, 220 + (int)((h >> 8) % 35));
		return;
	}
	{
		unsigned h = hash_name(n->name);
		int r = 205 + (int)(h % 50), g = (int)((h >> 8) % 190), b = (int)((h >> 16) % 55);
		if (strncmp(n->name, "[unknown]", 9) == 0)
			r = g = b = 190;
		snprintf(buf, len, "rgb(%d,%d,%d)", r, g, b);
	}
}

/* Write NAME, escaped, cut to what a box W pixels wide holds (7 px a
 * character at 11 px, as the script fits it when zooming): the labels are
 * in the SVG itself, for viewers that run no script. */
static void
label(FILE *fp, const char *name, double w)
{
	long room = (long)floor((w - 6) / CHAR_W);
	size_t i = 0, len = strlen(name), chars = 0, cut = 0;
	char *buf;

	if (room < 3)
		return;
	while (i < len) { /* code points; a bad byte counts as one */
		int n = ty_utf8_seqlen(name + i);
		i += n > 0 ? (size_t)n : 1;
		if (++chars == (size_t)room - 2)
			cut = i;
	}
	if (chars <= (size_t)room) {
		ty_svg_escape(fp, name);
		return;
	}
	if (!(buf = malloc(cut + 3)))
		return;
	memcpy(buf, name, cut);
	memcpy(buf + cut, "..", 3);
	ty_svg_escape(fp, buf);
	free(buf);
}

static void
frame(struct ctx *c, const struct ty_profile_views_node *n, int depth, double x, double w)
{
	const struct ty_profile_views_node *root = &c->t->nodes[0];
	const char *name = n->name ? n->name : "all";
	double pct = root->total > 0 ? 100 * n->total / root->total : 0;
	double self = root->total > 0 ? 100 * n->self / root->total : 0;
	int y = c->height - BOTTOM - (depth + 1) * FRAME_H;
	char fill[48], note[256] = "";

	if (c->o->shade) {
		double level = 0;
		int v = n->name ? c->o->shade(c->o->shade_arg, n->name, n->dso ? n->dso : "",
					      &level, note, sizeof(note))
				: 0;
		shade_colour(v, level, fill, sizeof(fill));
	} else {
		colour(c, n, fill, sizeof(fill));
	}
	fprintf(c->fp, "<g class=\"f\" data-d=\"%d\" data-name=\"", depth);
	ty_svg_escape(c->fp, name);
	fputs("\" data-info=\"", c->fp);
	ty_svg_escape(c->fp, name);
	if (n->dso && *n->dso) {
		fputs(" (", c->fp);
		ty_svg_escape(c->fp, n->dso);
		fputs(")", c->fp);
	}
	if (c->o->unit)
		fprintf(c->fp, ": %.0f %s, %.2f%%, self %.2f%%", n->total, c->o->unit, pct, self);
	else
		fprintf(c->fp, ": %" PRIu64 " samples, %.2f%%, self %.2f%%", n->total_n, pct, self);
	if (c->o->old) {
		double op = root->total > 0 ? 100 * n->old_total / root->total : 0;
		fprintf(c->fp, ", was %.2f%% (%+.2f)", op, pct - op);
	}
	if (*note) {
		fputs("; ", c->fp);
		ty_svg_escape(c->fp, note);
	}
	fputs("\"><title>", c->fp);
	ty_svg_escape(c->fp, name);
	if (c->o->unit)
		fprintf(c->fp, " (%.0f %s, %.2f%%", n->total, c->o->unit, pct);
	else
		fprintf(c->fp, " (%" PRIu64 " samples, %.2f%%", n->total_n, pct);
	if (c->o->old) /* the change in points of the share, as FlameGraph's difffolded */
		fprintf(c->fp, "; %+.2f%%",
			pct - (root->total > 0 ? 100 * n->old_total / root->total : 0));
	fputs(")</title>", c->fp);
	fprintf(c->fp, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\"/>", x, y,
		w, FRAME_H - 1, fill);
	fprintf(c->fp, "<text x=\"%.2f\" y=\"%d\">", x + 3, y + FRAME_H - 4);
	label(c->fp, name, w);
	fputs("</text></g>\n", c->fp);
}

static void
walk(struct ctx *c, uint32_t i, int depth, double x)
{
	const struct ty_profile_views_node *n = &c->t->nodes[i];
	double w = n->total * c->scale;
	uint32_t k;

	if (w < c->min_w)
		return;
	frame(c, n, depth, x, w);
	for (k = n->child; k != TY_NONE; k = c->t->nodes[k].sibling) {
		walk(c, k, depth + 1, x);
		x += c->t->nodes[k].total * c->scale;
	}
}

static int
max_depth(const struct ty_profile_views_tree *t, uint32_t i, double min)
{
	int best = 0, d;
	uint32_t k;

	for (k = t->nodes[i].child; k != TY_NONE; k = t->nodes[k].sibling)
		if (t->nodes[k].total >= min && (d = 1 + max_depth(t, k, min)) > best)
			best = d;
	return best;
}

int
ty_flame_write(const struct ty_profile *p, const struct ty_flame_opts *o, FILE *fp)
{
	struct ty_profile_views_tree t;
	struct ctx c = {0};
	uint32_t i;

	if (ty_profile_views_tree_build_match(&t, p, o->old, o->match) < 0)
		return -ENOMEM;
	ty_profile_views_tree_sort_children(&t, p);
	c.t = &t;
	c.o = o;
	c.fp = fp;
	c.width = o->width > 0 ? o->width : 1200;
	c.scale = t.nodes[0].total > 0 ? (c.width - 2 * PAD) / t.nodes[0].total : 0;
	for (i = 1; i < t.n; i++)
		if (fabs(t.nodes[i].total - t.nodes[i].old_total) > c.max_delta)
			c.max_delta = fabs(t.nodes[i].total - t.nodes[i].old_total);
	c.min_w = o->min_width > 0 ? o->min_width : 0.1;
	c.height =
	    TOP + BOTTOM + (max_depth(&t, 0, c.scale > 0 ? c.min_w / c.scale : 0) + 1) * FRAME_H;
	fprintf(fp,
		"<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"data-w=\"%d\" xmlns=\"http://www.w3.org/2000/svg\">\n",
		c.width, c.height, c.width, c.height, c.width);
	fputs(style, fp);
	fprintf(fp, "<rect width=\"100%%\" height=\"100%%\" fill=\"#f8f8f0\"/>\n");
	fprintf(fp, "<text id=\"title\" x=\"%d\" y=\"24\">", c.width / 2);
	ty_svg_escape(fp, o->title ? o->title : "Flame graph");
	fputs("</text>\n", fp);
	if (o->legend) {
		fprintf(fp, "<text x=\"%d\" y=\"42\" style=\"text-anchor:middle\">", c.width / 2);
		ty_svg_escape(fp, o->legend);
		fputs("</text>\n", fp);
	} else if (o->old) {
		fprintf(fp,
			"<text x=\"%d\" y=\"42\" style=\"text-anchor:middle\">red grew, blue "
			"shrank (width: the new profile)</text>\n",
			c.width / 2);
	}
	fprintf(fp,
		"<text id=\"reset\" class=\"btn\" x=\"%d\" y=\"24\" style=\"opacity:0\">Reset "
		"Zoom</text>\n",
		PAD);
	fprintf(fp,
		"<text id=\"search\" class=\"btn\" x=\"%d\" y=\"24\" "
		"style=\"text-anchor:end\">Search</text>\n",
		c.width - PAD);
	fprintf(fp, "<text id=\"found\" x=\"%d\" y=\"%d\" style=\"text-anchor:end\"> </text>\n",
		c.width - PAD, c.height - 12);
	fprintf(fp, "<text id=\"info\" x=\"%d\" y=\"%d\"> </text>\n", PAD, c.height - 12);
	fputs("<g id=\"frames\">\n", fp);
	if (t.nodes[0].total > 0)
		walk(&c, 0, 0, PAD);
	fputs("</g>\n", fp);
	fputs(script, fp);
	fputs("</svg>\n", fp);
	ty_profile_views_tree_release(&t);
	return ferror(fp) ? -EIO : 0;
}

/*
 * sim_svg.c - charts of a run as standalone SVG files:
 *
 *   gantt.svg        nodes over time.  Up to SVG_GANTT_MAX_ROWS nodes: one
 *                    row per node, one block per job (labelled with its id,
 *                    coloured by account, details in a tooltip), like the
 *                    scheduling primer's tables.  Larger clusters: rows of
 *                    node groups shaded by how busy they were (a heat map).
 *   utilisation.svg  share of nodes allocated over time, and the mean.
 *   waits.svg        wait time per job size class (box plots on a
 *                    logarithmic axis).
 */
#define _POSIX_C_SOURCE 200809L
#include "sim_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SVG_GANTT_MAX_ROWS 64
#define SVG_GANTT_GROUPS 48
#define SVG_HEAT_BINS 600
#define SVG_UTIL_BINS 1000

/* Qualitative palette (colour-blind friendly, Okabe-Ito and Tableau). */
static const char *const palette[] = {
	"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948",
	"#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#1b9e77", "#d95f02",
};
#define NPALETTE (sizeof(palette) / sizeof(palette[0]))

/* -------------------------------------------------------------- helpers */

static void svg_begin(struct fw_buf *b, int w, int h, const char *title)
{
	fw_buf_printf(b,
		       "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		       "viewBox=\"0 0 %d %d\" font-family=\"Helvetica,Arial,sans-serif\" "
		       "font-size=\"12\">\n"
		       "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n"
		       "<text x=\"%d\" y=\"24\" font-size=\"16\" font-weight=\"bold\" "
		       "text-anchor=\"middle\">%s</text>\n",
		       w, h, w, h, w / 2, title);
}

static void svg_end(struct fw_buf *b)
{
	fw_buf_printf(b, "</svg>\n");
}

/* Text content: escape the XML specials. */
static void svg_text(struct fw_buf *b, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fw_buf_printf(b, "&lt;"); break;
		case '>': fw_buf_printf(b, "&gt;"); break;
		case '&': fw_buf_printf(b, "&amp;"); break;
		case '"': fw_buf_printf(b, "&quot;"); break;
		default: fw_buf_append(b, s, 1);
		}
	}
}

/* The time span the charts show: first submit to last end. */
static void time_span(const struct sim_result *r, fw_time_t *t0, fw_time_t *t1)
{
	*t0 = INT64_MAX;
	*t1 = INT64_MIN;
	for (size_t i = 0; i < r->n; i++) {
		const struct sim_outjob *j = &r->job[i];

		if (j->start < 0)
			continue;
		if (j->submit < *t0)
			*t0 = j->submit;
		fw_time_t e = j->end >= 0 ? j->end : r->sim_end;
		if (e > *t1)
			*t1 = e;
	}
	if (*t0 == INT64_MAX) {
		*t0 = r->sim_begin;
		*t1 = r->sim_end;
	}
	if (*t1 <= *t0)
		*t1 = *t0 + 3600;
}

/* A tick step giving at most max_ticks ticks over span seconds. */
static int64_t tick_step(int64_t span, int max_ticks)
{
	static const int64_t steps[] = {
		60, 300, 600, 1800, 3600, 7200, 10800, 21600, 43200, 86400,
		2 * 86400, 7 * 86400, 14 * 86400, 30 * 86400, 61 * 86400,
		91 * 86400, 182 * 86400, 365 * 86400,
	};
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (span / steps[i] <= max_ticks)
			return steps[i];
	return span / max_ticks + 1;
}

static void tick_label(int64_t rel, fw_time_t abs, int64_t span, char *buf,
		       size_t len)
{
	if (span <= 3 * 86400) {
		if (rel % 3600 == 0)
			snprintf(buf, len, "%lldh", (long long)(rel / 3600));
		else
			snprintf(buf, len, "%lldh%02lld", (long long)(rel / 3600),
				 (long long)(rel / 60 % 60));
		return;
	}
	char t[32];
	sim_fmt_time(abs, t, sizeof(t));
	t[10] = '\0'; /* the date */
	snprintf(buf, len, "%s", t);
}

/* Vertical grid lines and labels of a time axis under a plot. */
static void time_axis(struct fw_buf *b, fw_time_t t0, fw_time_t t1, double x0,
		      double w, double ytop, double ybot)
{
	int64_t span = t1 - t0, step = tick_step(span, 12);
	/* Long spans: align ticks to whole days (UTC). */
	fw_time_t first = span > 3 * 86400 ? ((t0 + 86399) / 86400) * 86400 : t0;

	if (span > 3 * 86400 && step % 86400)
		step = 86400;
	for (fw_time_t t = first; t <= t1; t += step) {
		double x = x0 + w * (double)(t - t0) / (double)span;
		char lab[40];

		tick_label(t - t0, t, span, lab, sizeof(lab));
		fw_buf_printf(b,
			       "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			       "stroke=\"#dddddd\"/>\n"
			       "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
			       "fill=\"#444\">%s</text>\n",
			       x, ytop, x, ybot + 4, x, ybot + 18, lab);
	}
}

/* Accounts in name order give stable colours across runs. */
static int cmp_str(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;

	return strcmp(x ? x : "", y ? y : "");
}

struct acct_colors {
	const char **name;
	size_t n;
};

static void acct_colors_build(const struct sim_result *r, struct acct_colors *ac)
{
	ac->name = fw_xmalloc((r->n ? r->n : 1) * sizeof(char *));
	ac->n = 0;
	for (size_t i = 0; i < r->n; i++)
		ac->name[ac->n++] = r->job[i].account ? r->job[i].account : "";
	qsort(ac->name, ac->n, sizeof(char *), cmp_str);
	size_t w = 0;
	for (size_t i = 0; i < ac->n; i++)
		if (!w || strcmp(ac->name[w - 1], ac->name[i]))
			ac->name[w++] = ac->name[i];
	ac->n = w;
}

static const char *acct_color(const struct acct_colors *ac, const char *a)
{
	const char *key = a ? a : "";
	const char **hit = bsearch(&key, ac->name, ac->n, sizeof(char *), cmp_str);

	return palette[hit ? (size_t)(hit - ac->name) % NPALETTE : 0];
}

/* ------------------------------------------------------------- Gantt */

static void gantt_job(struct fw_buf *b, const struct sim_result *r,
		      const struct sim_outjob *j, const char *color,
		      fw_time_t t0, double x0, double sx, double y0, double rowh)
{
	fw_time_t end = j->end >= 0 ? j->end : r->sim_end;
	double x = x0 + (double)(j->start - t0) * sx;
	double w = (double)(end - j->start) * sx;
	char ts[32], te[32];

	/* One block per run of consecutive node rows. */
	for (uint32_t a = 0; a < j->nodes;) {
		uint32_t e = a;

		while (e + 1 < j->nodes && j->node[e + 1] == j->node[e] + 1)
			e++;
		double y = y0 + (double)j->node[a] * rowh;
		double h = (double)(e - a + 1) * rowh;
		fw_buf_printf(b,
			       "<g><title>job %u  user ",
			       j->id);
		svg_text(b, j->user);
		fw_buf_printf(b, "  account ");
		svg_text(b, j->account);
		fw_buf_printf(b, "\nstart %s  end %s  nodes %u%s</title>",
			       sim_fmt_time(j->start, ts, sizeof(ts)),
			       sim_fmt_time(end, te, sizeof(te)), j->nodes,
			       j->backfilled ? "  (backfilled)" : "");
		fw_buf_printf(b,
			       "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
			       "fill=\"%s\" stroke=\"#ffffff\" stroke-width=\"1\"%s/>",
			       x, y + 1, w > 0.5 ? w : 0.5, h - 2, color,
			       j->backfilled ? " stroke-dasharray=\"4 2\"" : "");
		char id[16];
		int len = snprintf(id, sizeof(id), "%u", j->id);
		if (w > 7.0 * len + 6 && rowh >= 12)
			fw_buf_printf(b,
				       "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\" "
				       "dominant-baseline=\"central\" fill=\"#ffffff\">%s</text>",
				       x + w / 2, y + h / 2, id);
		fw_buf_printf(b, "</g>\n");
		a = e + 1;
	}
}

static void gantt_legend(struct fw_buf *b, const struct acct_colors *ac,
			 double x0, double y)
{
	double x = x0;

	for (size_t i = 0; i < ac->n && i < 24; i++) {
		fw_buf_printf(b,
			       "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			       "<text x=\"%.1f\" y=\"%.1f\">",
			       x, y, palette[i % NPALETTE], x + 16, y + 10);
		svg_text(b, ac->name[i][0] ? ac->name[i] : "(none)");
		fw_buf_printf(b, "</text>\n");
		x += 24 + 7.0 * (double)strlen(ac->name[i][0] ? ac->name[i] : "(none)");
	}
}

static void gantt_rows(const struct sim_result *r, struct fw_buf *b)
{
	const struct sim_cluster *c = r->cluster;
	fw_time_t t0, t1;
	struct acct_colors ac;
	double rowh = c->nnodes <= 16 ? 28 : 16, x0 = 90, w = 900;
	double y0 = 50, ph = rowh * (double)c->nnodes;
	int H = (int)(y0 + ph + 70);

	time_span(r, &t0, &t1);
	acct_colors_build(r, &ac);
	double sx = w / (double)(t1 - t0);
	svg_begin(b, (int)(x0 + w + 30), H, "Nodes over time");
	time_axis(b, t0, t1, x0, w, y0, y0 + ph);
	for (size_t i = 0; i < c->nnodes; i++) {
		fw_buf_printf(b,
			       "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
			       "dominant-baseline=\"central\">",
			       x0 - 6, y0 + rowh * ((double)i + 0.5));
		svg_text(b, c->node[i].name);
		fw_buf_printf(b, "</text>\n");
	}
	fw_buf_printf(b,
		       "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		       "fill=\"none\" stroke=\"#888\"/>\n",
		       x0, y0, w, ph);
	for (size_t i = 0; i < r->n; i++) {
		const struct sim_outjob *j = &r->job[i];

		if (j->start >= 0 && j->node)
			gantt_job(b, r, j, acct_color(&ac, j->account), t0, x0,
				  sx, y0, rowh);
	}
	gantt_legend(b, &ac, x0, y0 + ph + 32);
	fw_buf_printf(b,
		       "<text x=\"%.1f\" y=\"%.1f\" fill=\"#666\">dashed outline: "
		       "backfilled</text>\n",
		       x0 + w - 150, y0 + ph + 42);
	free(ac.name);
	svg_end(b);
}

/* Busy node-seconds of job j in each bin, added into busy[group][bin]. */
static void heat_add(const struct sim_result *r, const struct sim_outjob *j,
		     double *busy, size_t groups, size_t bins, fw_time_t t0,
		     double binlen)
{
	size_t nn = r->cluster->nnodes;
	fw_time_t end = j->end >= 0 ? j->end : r->sim_end;

	for (uint32_t k = 0; k < j->nodes;) {
		size_t g = (size_t)j->node[k] * groups / nn, cnt = 0;

		while (k < j->nodes && (size_t)j->node[k] * groups / nn == g) {
			cnt++;
			k++;
		}
		double s = (double)(j->start - t0), e = (double)(end - t0);
		size_t b0 = (size_t)(s / binlen), b1 = (size_t)(e / binlen);
		for (size_t bi = b0; bi <= b1 && bi < bins; bi++) {
			double lo = fmax(s, (double)bi * binlen);
			double hi = fmin(e, (double)(bi + 1) * binlen);
			if (hi > lo)
				busy[g * bins + bi] += (double)cnt * (hi - lo);
		}
	}
}

static void gantt_heat(const struct sim_result *r, struct fw_buf *b)
{
	const struct sim_cluster *c = r->cluster;
	size_t groups = c->nnodes < SVG_GANTT_GROUPS ? c->nnodes : SVG_GANTT_GROUPS;
	size_t bins = SVG_HEAT_BINS;
	fw_time_t t0, t1;
	double x0 = 170, w = 900, rowh = 14, y0 = 50;
	double ph = rowh * (double)groups;

	time_span(r, &t0, &t1);
	double binlen = (double)(t1 - t0) / (double)bins;
	double *busy = fw_xcalloc(groups * bins, sizeof(double));
	for (size_t i = 0; i < r->n; i++)
		if (r->job[i].start >= 0 && r->job[i].node)
			heat_add(r, &r->job[i], busy, groups, bins, t0, binlen);

	svg_begin(b, (int)(x0 + w + 30), (int)(y0 + ph + 80),
		  "Nodes over time (share of each node group allocated)");
	for (size_t g = 0; g < groups; g++) {
		size_t lo = g * c->nnodes / groups, hi = (g + 1) * c->nnodes / groups;
		double cap = (double)(hi - lo) * binlen;
		double y = y0 + rowh * (double)g;

		fw_buf_printf(b,
			       "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
			       "dominant-baseline=\"central\" font-size=\"10\">",
			       x0 - 6, y + rowh / 2);
		svg_text(b, c->node[lo].name);
		if (hi - lo > 1) {
			fw_buf_printf(b, " .. ");
			svg_text(b, c->node[hi - 1].name);
		}
		fw_buf_printf(b, "</text>\n");
		/* Merge neighbouring bins of the same shade into one rect. */
		for (size_t bi = 0; bi < bins;) {
			int level = (int)lround(20 * fmin(1, busy[g * bins + bi] / cap));
			size_t e = bi + 1;
			while (e < bins &&
			       (int)lround(20 * fmin(1, busy[g * bins + e] / cap)) == level)
				e++;
			if (level > 0) {
				double f = level / 20.0;
				int rr = (int)lround(255 - f * (255 - 33));
				int gg = (int)lround(255 - f * (255 - 102));
				int bb = (int)lround(255 - f * (255 - 172));
				fw_buf_printf(b,
					       "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
					       "height=\"%.2f\" fill=\"#%02x%02x%02x\"/>\n",
					       x0 + w * (double)bi / (double)bins, y,
					       w * (double)(e - bi) / (double)bins, rowh,
					       rr, gg, bb);
			}
			bi = e;
		}
	}
	time_axis(b, t0, t1, x0, w, y0, y0 + ph);
	fw_buf_printf(b,
		       "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		       "fill=\"none\" stroke=\"#888\"/>\n",
		       x0, y0, w, ph);
	/* Colour scale. */
	double ly = y0 + ph + 34;
	for (int k = 0; k <= 10; k++) {
		double f = k / 10.0;
		fw_buf_printf(b,
			       "<rect x=\"%.1f\" y=\"%.1f\" width=\"20\" height=\"12\" "
			       "fill=\"#%02x%02x%02x\" stroke=\"#ccc\"/>\n",
			       x0 + 20 * k, ly, (int)lround(255 - f * 222),
			       (int)lround(255 - f * 153), (int)lround(255 - f * 83));
	}
	fw_buf_printf(b,
		       "<text x=\"%.1f\" y=\"%.1f\">0%%</text><text x=\"%.1f\" y=\"%.1f\">"
		       "100%% of the group's nodes allocated</text>\n",
		       x0 - 24, ly + 10, x0 + 226, ly + 10);
	free(busy);
	svg_end(b);
}

void sim_svg_gantt(const struct sim_result *r, struct fw_buf *b)
{
	if (!r->cluster || r->cluster->nnodes == 0) {
		svg_begin(b, 400, 60, "No nodes");
		svg_end(b);
		return;
	}
	if (r->cluster->nnodes <= SVG_GANTT_MAX_ROWS)
		gantt_rows(r, b);
	else
		gantt_heat(r, b);
}

/* ------------------------------------------------------- utilisation */

void sim_svg_utilisation(const struct sim_result *r, struct fw_buf *b)
{
	fw_time_t t0, t1;
	double x0 = 70, w = 900, y0 = 50, ph = 300;
	size_t nn = r->cluster ? r->cluster->nnodes : 0;

	time_span(r, &t0, &t1);
	size_t bins = (size_t)(t1 - t0) < SVG_UTIL_BINS ? (size_t)(t1 - t0) : SVG_UTIL_BINS;
	double binlen = (double)(t1 - t0) / (double)bins;
	double *busy = fw_xcalloc(bins, sizeof(double));
	double total = 0;

	for (size_t i = 0; i < r->n; i++) {
		const struct sim_outjob *j = &r->job[i];
		if (j->start < 0)
			continue;
		double s = (double)(j->start - t0);
		double e = (double)((j->end >= 0 ? j->end : r->sim_end) - t0);
		for (size_t bi = (size_t)(s / binlen); bi < bins && (double)bi * binlen < e; bi++) {
			double lo = fmax(s, (double)bi * binlen);
			double hi = fmin(e, (double)(bi + 1) * binlen);
			if (hi > lo)
				busy[bi] += (double)j->nodes * (hi - lo);
		}
	}
	svg_begin(b, (int)(x0 + w + 30), (int)(y0 + ph + 60),
		  "Utilisation (share of nodes allocated)");
	time_axis(b, t0, t1, x0, w, y0, y0 + ph);
	for (int k = 0; k <= 4; k++) {
		double y = y0 + ph - ph * k / 4.0;
		fw_buf_printf(b,
			       "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			       "stroke=\"#dddddd\"/><text x=\"%.1f\" y=\"%.1f\" "
			       "text-anchor=\"end\" dominant-baseline=\"central\">%d%%</text>\n",
			       x0, y, x0 + w, y, x0 - 6, y, 25 * k);
	}
	/* Area under the step curve. */
	fw_buf_printf(b, "<path fill=\"#4e79a7\" fill-opacity=\"0.35\" stroke=\"#4e79a7\" "
			  "stroke-width=\"1.2\" d=\"M%.2f %.2f", x0, y0 + ph);
	for (size_t bi = 0; bi < bins; bi++) {
		double u = nn ? busy[bi] / ((double)nn * binlen) : 0;
		total += busy[bi];
		double y = y0 + ph - ph * fmin(1, u);
		fw_buf_printf(b, " L%.2f %.2f L%.2f %.2f",
			       x0 + w * (double)bi / (double)bins, y,
			       x0 + w * (double)(bi + 1) / (double)bins, y);
	}
	fw_buf_printf(b, " L%.2f %.2f Z\"/>\n", x0 + w, y0 + ph);
	double mean = nn ? total / ((double)nn * (double)(t1 - t0)) : 0;
	double ym = y0 + ph - ph * fmin(1, mean);
	fw_buf_printf(b,
		       "<line x1=\"%.1f\" y1=\"%.2f\" x2=\"%.1f\" y2=\"%.2f\" stroke=\"#e15759\" "
		       "stroke-dasharray=\"6 3\"/><text x=\"%.1f\" y=\"%.2f\" "
		       "text-anchor=\"end\" fill=\"#e15759\" stroke=\"#ffffff\" stroke-width=\"3\" "
		       "paint-order=\"stroke\">mean %.1f%%</text>\n",
		       x0, ym, x0 + w, ym, x0 + w - 4, ym - 5, 100 * mean);
	fw_buf_printf(b,
		       "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		       "fill=\"none\" stroke=\"#888\"/>\n",
		       x0, y0, w, ph);
	free(busy);
	svg_end(b);
}

/* ------------------------------------------------------------- waits */

/* Size classes by nodes: 1, 2, 3-4, 5-8, 9-16, ... */
static int size_class(uint32_t nodes)
{
	int k = 0;

	while (k < 30 && ((uint32_t)1 << k) < nodes)
		k++;
	return k;
}

static void class_label(int k, char *buf, size_t len)
{
	if (k == 0)
		snprintf(buf, len, "1");
	else if (k == 1)
		snprintf(buf, len, "2");
	else
		snprintf(buf, len, "%u-%u", (1u << (k - 1)) + 1, 1u << k);
}

static int cmp_i64_svg(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* log10(1 + minutes): 0 stays 0, then one step per factor of ten. */
static double wait_scale(double sec)
{
	return log10(1 + sec / 60);
}

static double quantile(const int64_t *v, size_t n, double q)
{
	double pos = q * (double)(n - 1);
	size_t lo = (size_t)floor(pos), hi = (size_t)ceil(pos);

	return (double)v[lo] + (pos - (double)lo) * (double)(v[hi] - v[lo]);
}

/* Horizontal grid lines and labels of the logarithmic wait axis. */
static void wait_ticks(struct fw_buf *b, double x0, double y0, double pw,
		       double ph, double top)
{
	static const struct { int64_t sec; const char *lab; } ticks[] = {
		{ 0, "0" }, { 60, "1 min" }, { 600, "10 min" }, { 3600, "1 h" },
		{ 6 * 3600, "6 h" }, { 86400, "1 day" }, { 7 * 86400, "1 week" },
		{ 30 * 86400, "30 days" }, { 182 * 86400, "6 months" },
	};

	for (size_t t = 0; t < sizeof(ticks) / sizeof(ticks[0]); t++) {
		double v = wait_scale((double)ticks[t].sec);
		if (v > top)
			break;
		double y = y0 + ph - ph * v / top;
		fw_buf_printf(b,
			       "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			       "stroke=\"#dddddd\"/><text x=\"%.1f\" y=\"%.1f\" "
			       "text-anchor=\"end\" dominant-baseline=\"central\">%s</text>\n",
			       x0, y, x0 + pw, y, x0 - 6, y, ticks[t].lab);
	}
}

/* One box (sorted waits w[0..n-1]) centred on cx. */
static void wait_box(struct fw_buf *b, const struct sim_wait_box *bx,
		     double cx, double bw, double y0, double ph, double top)
{
	const int64_t *w = bx->wait;
	size_t n = bx->n;
	double q[5] = { quantile(w, n, 0.05), quantile(w, n, 0.25),
			quantile(w, n, 0.5), quantile(w, n, 0.75),
			quantile(w, n, 0.95) };
	double y[5], mean = 0;
	char med[32];

	for (int i = 0; i < 5; i++)
		y[i] = y0 + ph - ph * wait_scale(q[i]) / top;
	for (size_t i = 0; i < n; i++)
		mean += (double)w[i];
	mean /= (double)n;
	double ymean = y0 + ph - ph * wait_scale(mean) / top;
	double ymax = y0 + ph - ph * wait_scale((double)w[n - 1]) / top;
	sim_fmt_dur((int64_t)q[2], med, sizeof(med));
	fw_buf_printf(b, "<g><title>");
	svg_text(b, bx->tip ? bx->tip : bx->label);
	fw_buf_printf(b,
		       ": %zu jobs, median wait %s</title>\n"
		       "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n"
		       "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		       "fill=\"#a0cbe8\" stroke=\"#333\"/>\n"
		       "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		       "stroke=\"#333\" stroke-width=\"2\"/>\n"
		       "<path d=\"M%.1f %.1f l5 5 l-5 5 l-5 -5 z\" fill=\"#e15759\"/>\n"
		       "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"#333\"/></g>\n",
		       n, med, cx, y[0], cx, y[4], cx - bw / 2, y[3], bw,
		       fmax(1, y[1] - y[3]), cx - bw / 2, y[2], cx + bw / 2, y[2],
		       cx, ymean - 5, cx, ymax);
	fw_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
		       cx, y0 + ph + 18);
	svg_text(b, bx->label);
	fw_buf_printf(b, "</text>\n<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
			  "fill=\"#666\" font-size=\"10\">n=%zu</text>\n",
		       cx, y0 + ph + 32, n);
}

void sim_svg_wait_boxes(const struct sim_wait_box *bx, size_t nb,
			const char *title, const char *xlabel, struct fw_buf *b)
{
	int64_t maxw = 60;
	size_t shown = 0;

	for (size_t k = 0; k < nb; k++) {
		if (!bx[k].n)
			continue;
		shown++;
		if (bx[k].wait[bx[k].n - 1] > maxw)
			maxw = bx[k].wait[bx[k].n - 1];
	}
	double x0 = 80, ph = 320, y0 = 60;
	double colw = shown ? fmax(60, fmin(120, 900.0 / (double)shown)) : 120;
	double pw = colw * (double)(shown ? shown : 1);
	double top = wait_scale((double)maxw) * 1.05;
	svg_begin(b, (int)(x0 + pw + 40), (int)(y0 + ph + 70), title);
	wait_ticks(b, x0, y0, pw, ph, top);
	int col = 0;
	for (size_t k = 0; k < nb; k++) {
		if (!bx[k].n)
			continue;
		wait_box(b, &bx[k], x0 + colw * (col + 0.5), colw * 0.5, y0, ph, top);
		col++;
	}
	fw_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
		       x0 + pw / 2, y0 + ph + 52);
	svg_text(b, xlabel);
	fw_buf_printf(b,
		       "</text>\n<text x=\"%.1f\" y=\"%.1f\" fill=\"#666\" font-size=\"10\">box: 25-75%%, "
		       "bar: median, whiskers: 5-95%%, dot: max, red: mean</text>\n"
		       "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		       "fill=\"none\" stroke=\"#888\"/>\n",
		       x0, y0 - 8, x0, y0, pw, ph);
	svg_end(b);
}

void sim_svg_waits(const struct sim_result *r, struct fw_buf *b)
{
	enum { NCLASS = 31 };
	struct sim_wait_box bx[NCLASS];
	size_t cap[NCLASS] = { 0 };
	char lab[NCLASS][32], tip[NCLASS][48];

	memset(bx, 0, sizeof(bx));
	for (size_t i = 0; i < r->n; i++) {
		const struct sim_outjob *j = &r->job[i];
		if (j->state != SIM_JOB_DONE)
			continue;
		int k = size_class(j->nodes);
		if (bx[k].n == cap[k]) {
			cap[k] = cap[k] ? cap[k] * 2 : 64;
			bx[k].wait = fw_xrealloc(bx[k].wait, cap[k] * sizeof(int64_t));
		}
		bx[k].wait[bx[k].n++] = j->start - j->submit;
	}
	for (int k = 0; k < NCLASS; k++) {
		class_label(k, lab[k], sizeof(lab[k]));
		snprintf(tip[k], sizeof(tip[k]), "%.31s node(s)", lab[k]);
		bx[k].label = lab[k];
		bx[k].tip = tip[k];
		if (bx[k].n)
			qsort(bx[k].wait, bx[k].n, sizeof(int64_t), cmp_i64_svg);
	}
	sim_svg_wait_boxes(bx, NCLASS, "Wait time by job size", "nodes per job", b);
	for (int k = 0; k < NCLASS; k++)
		free(bx[k].wait);
}

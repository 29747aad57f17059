/* cmd-stat.c - `tachy stat`: compare data sets of numbers, as FreeBSD's
 * ministat(1) does, byte for byte, only faster; plus Welch's t, the
 * Mann-Whitney U test, any confidence level, and JSON.
 *
 * Where ministat sorts, this does linear work: the median by selection,
 * the plot by counting points per column (the points of one column are a
 * run of the sorted data, since a value's column is monotone in it). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.h"
#include "tachy/jsonw.h"
#include "tachy/numparse.h"
#include "tachy/stats.h"

#define MAX_SETS 7
#define NCONF 6

static const char symbol[MAX_SETS + 1] = {' ', 'x', '+', '*', '%', '#', '@', 'O'};

/* ministat's confidence levels and Student t table, kept as ministat has
 * them so that its output is matched: row 0 serves every df above 100.
 * (Its "99.5%" column holds one-sided 99.9% values: a 99.8% interval.) */
static const double conf_levels[NCONF] = {80, 90, 95, 98, 99, 99.5};
static const double t_table[101][NCONF] = {
    {1.282, 1.645, 1.960, 2.326, 2.576, 3.090},	     /* df > 100 */
    {3.078, 6.314, 12.706, 31.821, 63.657, 318.313}, /* df 1 */
    {1.886, 2.920, 4.303, 6.965, 9.925, 22.327},     /* df 2 */
    {1.638, 2.353, 3.182, 4.541, 5.841, 10.215},     /* df 3 */
    {1.533, 2.132, 2.776, 3.747, 4.604, 7.173},	     /* df 4 */
    {1.476, 2.015, 2.571, 3.365, 4.032, 5.893},	     /* df 5 */
    {1.440, 1.943, 2.447, 3.143, 3.707, 5.208},	     /* df 6 */
    {1.415, 1.895, 2.365, 2.998, 3.499, 4.782},	     /* df 7 */
    {1.397, 1.860, 2.306, 2.896, 3.355, 4.499},	     /* df 8 */
    {1.383, 1.833, 2.262, 2.821, 3.250, 4.296},	     /* df 9 */
    {1.372, 1.812, 2.228, 2.764, 3.169, 4.143},	     /* df 10 */
    {1.363, 1.796, 2.201, 2.718, 3.106, 4.024},	     /* df 11 */
    {1.356, 1.782, 2.179, 2.681, 3.055, 3.929},	     /* df 12 */
    {1.350, 1.771, 2.160, 2.650, 3.012, 3.852},	     /* df 13 */
    {1.345, 1.761, 2.145, 2.624, 2.977, 3.787},	     /* df 14 */
    {1.341, 1.753, 2.131, 2.602, 2.947, 3.733},	     /* df 15 */
    {1.337, 1.746, 2.120, 2.583, 2.921, 3.686},	     /* df 16 */
    {1.333, 1.740, 2.110, 2.567, 2.898, 3.646},	     /* df 17 */
    {1.330, 1.734, 2.101, 2.552, 2.878, 3.610},	     /* df 18 */
    {1.328, 1.729, 2.093, 2.539, 2.861, 3.579},	     /* df 19 */
    {1.325, 1.725, 2.086, 2.528, 2.845, 3.552},	     /* df 20 */
    {1.323, 1.721, 2.080, 2.518, 2.831, 3.527},	     /* df 21 */
    {1.321, 1.717, 2.074, 2.508, 2.819, 3.505},	     /* df 22 */
    {1.319, 1.714, 2.069, 2.500, 2.807, 3.485},	     /* df 23 */
    {1.318, 1.711, 2.064, 2.492, 2.797, 3.467},	     /* df 24 */
    {1.316, 1.708, 2.060, 2.485, 2.787, 3.450},	     /* df 25 */
    {1.315, 1.706, 2.056, 2.479, 2.779, 3.435},	     /* df 26 */
    {1.314, 1.703, 2.052, 2.473, 2.771, 3.421},	     /* df 27 */
    {1.313, 1.701, 2.048, 2.467, 2.763, 3.408},	     /* df 28 */
    {1.311, 1.699, 2.045, 2.462, 2.756, 3.396},	     /* df 29 */
    {1.310, 1.697, 2.042, 2.457, 2.750, 3.385},	     /* df 30 */
    {1.309, 1.696, 2.040, 2.453, 2.744, 3.375},	     /* df 31 */
    {1.309, 1.694, 2.037, 2.449, 2.738, 3.365},	     /* df 32 */
    {1.308, 1.692, 2.035, 2.445, 2.733, 3.356},	     /* df 33 */
    {1.307, 1.691, 2.032, 2.441, 2.728, 3.348},	     /* df 34 */
    {1.306, 1.690, 2.030, 2.438, 2.724, 3.340},	     /* df 35 */
    {1.306, 1.688, 2.028, 2.434, 2.719, 3.333},	     /* df 36 */
    {1.305, 1.687, 2.026, 2.431, 2.715, 3.326},	     /* df 37 */
    {1.304, 1.686, 2.024, 2.429, 2.712, 3.319},	     /* df 38 */
    {1.304, 1.685, 2.023, 2.426, 2.708, 3.313},	     /* df 39 */
    {1.303, 1.684, 2.021, 2.423, 2.704, 3.307},	     /* df 40 */
    {1.303, 1.683, 2.020, 2.421, 2.701, 3.301},	     /* df 41 */
    {1.302, 1.682, 2.018, 2.418, 2.698, 3.296},	     /* df 42 */
    {1.302, 1.681, 2.017, 2.416, 2.695, 3.291},	     /* df 43 */
    {1.301, 1.680, 2.015, 2.414, 2.692, 3.286},	     /* df 44 */
    {1.301, 1.679, 2.014, 2.412, 2.690, 3.281},	     /* df 45 */
    {1.300, 1.679, 2.013, 2.410, 2.687, 3.277},	     /* df 46 */
    {1.300, 1.678, 2.012, 2.408, 2.685, 3.273},	     /* df 47 */
    {1.299, 1.677, 2.011, 2.407, 2.682, 3.269},	     /* df 48 */
    {1.299, 1.677, 2.010, 2.405, 2.680, 3.265},	     /* df 49 */
    {1.299, 1.676, 2.009, 2.403, 2.678, 3.261},	     /* df 50 */
    {1.298, 1.675, 2.008, 2.402, 2.676, 3.258},	     /* df 51 */
    {1.298, 1.675, 2.007, 2.400, 2.674, 3.255},	     /* df 52 */
    {1.298, 1.674, 2.006, 2.399, 2.672, 3.251},	     /* df 53 */
    {1.297, 1.674, 2.005, 2.397, 2.670, 3.248},	     /* df 54 */
    {1.297, 1.673, 2.004, 2.396, 2.668, 3.245},	     /* df 55 */
    {1.297, 1.673, 2.003, 2.395, 2.667, 3.242},	     /* df 56 */
    {1.297, 1.672, 2.002, 2.394, 2.665, 3.239},	     /* df 57 */
    {1.296, 1.672, 2.002, 2.392, 2.663, 3.237},	     /* df 58 */
    {1.296, 1.671, 2.001, 2.391, 2.662, 3.234},	     /* df 59 */
    {1.296, 1.671, 2.000, 2.390, 2.660, 3.232},	     /* df 60 */
    {1.296, 1.670, 2.000, 2.389, 2.659, 3.229},	     /* df 61 */
    {1.295, 1.670, 1.999, 2.388, 2.657, 3.227},	     /* df 62 */
    {1.295, 1.669, 1.998, 2.387, 2.656, 3.225},	     /* df 63 */
    {1.295, 1.669, 1.998, 2.386, 2.655, 3.223},	     /* df 64 */
    {1.295, 1.669, 1.997, 2.385, 2.654, 3.220},	     /* df 65 */
    {1.295, 1.668, 1.997, 2.384, 2.652, 3.218},	     /* df 66 */
    {1.294, 1.668, 1.996, 2.383, 2.651, 3.216},	     /* df 67 */
    {1.294, 1.668, 1.995, 2.382, 2.650, 3.214},	     /* df 68 */
    {1.294, 1.667, 1.995, 2.382, 2.649, 3.213},	     /* df 69 */
    {1.294, 1.667, 1.994, 2.381, 2.648, 3.211},	     /* df 70 */
    {1.294, 1.667, 1.994, 2.380, 2.647, 3.209},	     /* df 71 */
    {1.293, 1.666, 1.993, 2.379, 2.646, 3.207},	     /* df 72 */
    {1.293, 1.666, 1.993, 2.379, 2.645, 3.206},	     /* df 73 */
    {1.293, 1.666, 1.993, 2.378, 2.644, 3.204},	     /* df 74 */
    {1.293, 1.665, 1.992, 2.377, 2.643, 3.202},	     /* df 75 */
    {1.293, 1.665, 1.992, 2.376, 2.642, 3.201},	     /* df 76 */
    {1.293, 1.665, 1.991, 2.376, 2.641, 3.199},	     /* df 77 */
    {1.292, 1.665, 1.991, 2.375, 2.640, 3.198},	     /* df 78 */
    {1.292, 1.664, 1.990, 2.374, 2.640, 3.197},	     /* df 79 */
    {1.292, 1.664, 1.990, 2.374, 2.639, 3.195},	     /* df 80 */
    {1.292, 1.664, 1.990, 2.373, 2.638, 3.194},	     /* df 81 */
    {1.292, 1.664, 1.989, 2.373, 2.637, 3.193},	     /* df 82 */
    {1.292, 1.663, 1.989, 2.372, 2.636, 3.191},	     /* df 83 */
    {1.292, 1.663, 1.989, 2.372, 2.636, 3.190},	     /* df 84 */
    {1.292, 1.663, 1.988, 2.371, 2.635, 3.189},	     /* df 85 */
    {1.291, 1.663, 1.988, 2.370, 2.634, 3.188},	     /* df 86 */
    {1.291, 1.663, 1.988, 2.370, 2.634, 3.187},	     /* df 87 */
    {1.291, 1.662, 1.987, 2.369, 2.633, 3.185},	     /* df 88 */
    {1.291, 1.662, 1.987, 2.369, 2.632, 3.184},	     /* df 89 */
    {1.291, 1.662, 1.987, 2.368, 2.632, 3.183},	     /* df 90 */
    {1.291, 1.662, 1.986, 2.368, 2.631, 3.182},	     /* df 91 */
    {1.291, 1.662, 1.986, 2.368, 2.630, 3.181},	     /* df 92 */
    {1.291, 1.661, 1.986, 2.367, 2.630, 3.180},	     /* df 93 */
    {1.291, 1.661, 1.986, 2.367, 2.629, 3.179},	     /* df 94 */
    {1.291, 1.661, 1.985, 2.366, 2.629, 3.178},	     /* df 95 */
    {1.290, 1.661, 1.985, 2.366, 2.628, 3.177},	     /* df 96 */
    {1.290, 1.661, 1.985, 2.365, 2.627, 3.176},	     /* df 97 */
    {1.290, 1.661, 1.984, 2.365, 2.627, 3.175},	     /* df 98 */
    {1.290, 1.660, 1.984, 2.365, 2.626, 3.175},	     /* df 99 */
    {1.290, 1.660, 1.984, 2.364, 2.626, 3.174},	     /* df 100 */
};

struct set {
	const char *name;
	struct ty_numbers nums;
	struct ty_summary s;
};

struct opts {
	int column;
	const char *delim;
	int width;
	int summary_only; /* -n */
	int no_plot;	  /* -A */
	int quiet;	  /* -q */
	int separate;	  /* -s */
	int json;
	int level; /* index in conf_levels, or -1 with --confidence */
	double confidence;
	int conf_set; /* 1: -c given, 2: --confidence given */
	enum ty_test test;
};

/* ---- the plot ---- */

struct plot {
	int width;
	double x0, dx, span;
	size_t height;		 /* rows of points plus one, as ministat counts */
	size_t *count[MAX_SETS]; /* points of each set in each column */
	char *bar[MAX_SETS];	 /* the |__M_A__| lines */
	int nsets;
};

/* The column of V: ministat's truncation, kept inside the plot (ministat
 * would write outside it when values are not finite). */
static int
column_of(const struct plot *pl, double v)
{
	double c = (v - pl->x0) / pl->dx;

	if (!(c >= 0))
		return 0;
	if (c >= pl->width - 1)
		return pl->width - 1;
	return (int)c;
}

static void
plot_init(struct plot *pl, const struct set *sets, int nsets, int width)
{
	double mn = 999e99, mx = -999e99, v[4];
	int i, k;

	memset(pl, 0, sizeof(*pl));
	pl->width = width;
	pl->nsets = nsets;
	for (i = 0; i < nsets; i++) {
		v[0] = sets[i].s.min;
		v[1] = sets[i].s.max;
		v[2] = sets[i].s.mean - sets[i].s.stddev;
		v[3] = sets[i].s.mean + sets[i].s.stddev;
		for (k = 0; k < 4; k++) {
			if (v[k] < mn)
				mn = v[k];
			if (v[k] > mx)
				mx = v[k];
		}
	}
	pl->span = mx - mn;
	pl->dx = pl->span / (width - 1.0);
	pl->x0 = mn - .5 * pl->dx;
}

static void
plot_release(struct plot *pl)
{
	int i;

	for (i = 0; i < MAX_SETS; i++) {
		free(pl->count[i]);
		free(pl->bar[i]);
	}
}

/* Count set IDX's points per column and draw its bar. */
static int
plot_set(struct plot *pl, const struct set *set, int idx, int separate)
{
	const struct ty_summary *s = &set->s;
	int b = separate ? idx : 0, x, m, z;
	size_t *cnt, i, most = 1;
	char *bar;

	cnt = calloc((size_t)pl->width, sizeof(*cnt));
	if (!cnt)
		return -ENOMEM;
	pl->count[idx] = cnt;
	for (i = 0; i < set->nums.n; i++)
		cnt[column_of(pl, set->nums.v[i])]++;
	for (x = 0; x < pl->width; x++)
		if (cnt[x] > most)
			most = cnt[x];
	/* ministat keeps the last set's height, cutting taller stacks of the
	 * sets before it; here every point is shown */
	if (most + 1 > pl->height)
		pl->height = most + 1;
	if (!pl->bar[b] && !(pl->bar[b] = calloc((size_t)pl->width, 1)))
		return -ENOMEM;
	bar = pl->bar[b];
	if (!isnan(s->stddev)) {
		x = column_of(pl, s->mean - s->stddev);
		m = column_of(pl, s->mean + s->stddev);
		bar[m] = '|';
		bar[x] = '|';
		for (z = x + 1; z < m; z++)
			if (bar[z] == 0)
				bar[z] = '_';
	}
	bar[column_of(pl, s->median)] = 'M';
	bar[column_of(pl, s->mean)] = 'A';
	return 0;
}

static void
plot_border(const struct plot *pl, char *line)
{
	line[0] = '+';
	memset(line + 1, '-', (size_t)pl->width);
	line[pl->width + 1] = '+';
	line[pl->width + 2] = '\n';
	fwrite(line, 1, (size_t)pl->width + 3, stdout);
}

static int
plot_print(const struct plot *pl)
{
	char *line;
	size_t row;
	int x, i, k;

	if (pl->span == 0) {
		printf("[no plot, span is zero width]\n");
		return 0;
	}
	line = malloc((size_t)pl->width + 3);
	if (!line)
		return -ENOMEM;
	plot_border(pl, line);
	line[0] = '|';
	line[pl->width + 1] = '|';
	for (row = pl->height - 1; row >= 1; row--) {
		for (x = 0; x < pl->width; x++) {
			for (k = 0, i = 0; i < pl->nsets; i++)
				if (pl->count[i][x] >= row)
					k |= i + 1;
			line[x + 1] = symbol[k];
		}
		fwrite(line, 1, (size_t)pl->width + 3, stdout);
	}
	for (i = 0; i < pl->nsets; i++) {
		if (!pl->bar[i])
			continue;
		for (x = 0; x < pl->width; x++)
			line[x + 1] = pl->bar[i][x] ? pl->bar[i][x] : ' ';
		fwrite(line, 1, (size_t)pl->width + 3, stdout);
	}
	plot_border(pl, line);
	free(line);
	return 0;
}

static int
draw_plot(const struct set *sets, int nsets, const struct opts *o)
{
	struct plot pl;
	int i, rc = 0;

	plot_init(&pl, sets, nsets, o->width);
	if (pl.span != 0)
		for (i = 0; i < nsets && rc == 0; i++)
			rc = plot_set(&pl, &sets[i], i, o->separate);
	if (rc == 0)
		rc = plot_print(&pl);
	plot_release(&pl);
	return rc;
}

/* ---- the comparisons ---- */

/* "95.0" as ministat prints its levels; other levels as they were given. */
static void
format_level(double conf, char *buf, size_t len)
{
	if (conf * 10 == floor(conf * 10))
		snprintf(buf, len, "%.1f", conf);
	else
		snprintf(buf, len, "%g", conf);
}

/* Compare set B against the reference A; fills R and the half-widths
 * (E, RE) the text shows for the t tests. */
static int
compare(const struct set *a, const struct set *b, const struct opts *o, struct ty_compare *r,
	double *e, double *re)
{
	double t;
	int rc;

	*e = *re = NAN;
	switch (o->test) {
	case TY_TEST_STUDENT:
		if (o->level >= 0) {
			size_t df = a->s.n + b->s.n - 2;
			t = t_table[df > 100 ? 0 : df][o->level];
		} else {
			t = ty_stats_t_quantile(0.5 + o->confidence / 200, a->s.n + b->s.n - 2.0);
		}
		rc = ty_stats_student_t(&a->s, &b->s, t, r);
		*e = ty_stats_pooled_halfwidth(&a->s, &b->s, t);
		*re = ty_stats_relative_halfwidth(&a->s, &b->s, t);
		break;
	case TY_TEST_WELCH:
		rc = ty_stats_welch(&a->s, &b->s, o->confidence, r);
		/* t times the standard error, not (hi - lo) / 2: that is lost
		 * when the difference dwarfs it */
		*e = ty_stats_t_quantile(0.5 + o->confidence / 200, r->df) *
		     hypot(a->s.stddev / sqrt((double)a->s.n), b->s.stddev / sqrt((double)b->s.n));
		*re = *e * 100 / fabs(a->s.mean); /* unclamped, as printed with +/- */
		break;
	default:
		rc = ty_stats_mann_whitney(a->nums.v, a->nums.n, b->nums.v, b->nums.n,
					   o->confidence, r);
		break;
	}
	return rc;
}

/* Mann-Whitney at sizes that can prove nothing has no interval: its
 * bounds are -inf and inf, which are neither printed nor refused. */
static int
unbounded(const struct ty_compare *r)
{
	return r->test == TY_TEST_MANN_WHITNEY && isinf(r->diff_lo) && r->diff_lo < 0 &&
	       isinf(r->diff_hi) && r->diff_hi > 0;
}

/* ministat's text for Student's t; Welch and Mann-Whitney say more, and
 * show their figures whether or not a difference is proven. */
static void
print_comparison(const struct ty_compare *r, double e, double re, const struct opts *o)
{
	char level[32];

	format_level(o->confidence, level, sizeof(level));
	if (r->significant)
		printf("Difference at %s%% confidence\n", level);
	else
		printf("No difference proven at %s%% confidence\n", level);
	if (!r->significant && r->test == TY_TEST_STUDENT)
		return;
	if (r->test == TY_TEST_MANN_WHITNEY && unbounded(r)) {
		printf("\t%g [no interval: too few values to bound it]\n", r->diff);
		printf("\t%g%%\n", r->rel);
		printf("\t(Mann-Whitney U = %g, p = %g; Hodges-Lehmann shift)\n", r->u, r->p_value);
		return;
	}
	if (r->test == TY_TEST_MANN_WHITNEY) {
		printf("\t%g [%g, %g]\n", r->diff, r->diff_lo, r->diff_hi);
		printf("\t%g%% [%g%%, %g%%]\n", r->rel, r->rel_lo, r->rel_hi);
		printf("\t(Mann-Whitney U = %g, p = %g; Hodges-Lehmann shift)\n", r->u, r->p_value);
		return;
	}
	printf("\t%g +/- %g\n", r->diff, e);
	printf("\t%g%% +/- %g%%\n", r->rel, re);
	if (r->test == TY_TEST_STUDENT)
		printf("\t(Student's t, pooled s = %g)\n", r->pooled_s);
	else
		printf("\t(Welch's t, df = %g, p = %g)\n", r->df, r->p_value);
}

static void
print_vitals(const struct set *set, int idx)
{
	const struct ty_summary *s = &set->s;

	printf("%c %3zu %13.8g %13.8g %13.8g %13.8g %13.8g\n", symbol[idx + 1], s->n, s->min,
	       s->max, s->median, s->mean, s->stddev);
}

static int
print_text(struct set *sets, int nsets, const struct opts *o)
{
	struct ty_compare r;
	double e, re;
	int i, rc;

	if (!o->quiet)
		for (i = 0; i < nsets; i++)
			printf("%c %s\n", symbol[i + 1], sets[i].name);
	if (!o->summary_only && !o->no_plot && (rc = draw_plot(sets, nsets, o)) < 0)
		return rc;
	if (!o->quiet)
		printf("    N           Min           Max        Median           Avg        "
		       "Stddev\n");
	print_vitals(&sets[0], 0);
	for (i = 1; i < nsets; i++) {
		print_vitals(&sets[i], i);
		if (o->summary_only)
			continue;
		if ((rc = compare(&sets[0], &sets[i], o, &r, &e, &re)) < 0)
			return rc;
		print_comparison(&r, e, re, o);
	}
	return 0;
}

/* ---- JSON ---- */

static const char *
test_name(enum ty_test t)
{
	return t == TY_TEST_STUDENT ? "student" : t == TY_TEST_WELCH ? "welch" : "mann-whitney";
}

static void
json_set(struct ty_jsonw *w, const struct set *set, int idx)
{
	char sym[2] = {symbol[idx + 1], '\0'};

	ty_jsonw_object_begin(w);
	ty_jsonw_kstring(w, "name", set->name);
	ty_jsonw_kstring(w, "symbol", sym);
	ty_jsonw_kuint(w, "n", set->s.n);
	ty_jsonw_kdouble(w, "min", set->s.min);
	ty_jsonw_kdouble(w, "max", set->s.max);
	ty_jsonw_kdouble(w, "median", set->s.median);
	ty_jsonw_kdouble(w, "mean", set->s.mean);
	ty_jsonw_kdouble(w, "stddev", set->s.stddev);
	ty_jsonw_object_end(w);
}

static void
json_comparison(struct ty_jsonw *w, int idx, const struct ty_compare *r, double e, double re)
{
	ty_jsonw_object_begin(w);
	ty_jsonw_kuint(w, "set", (uint64_t)idx);
	ty_jsonw_kuint(w, "against", 0);
	ty_jsonw_kstring(w, "test", test_name(r->test));
	ty_jsonw_kbool(w, "significant", r->significant);
	ty_jsonw_kdouble(w, "difference", r->diff);
	ty_jsonw_kdouble(w, "difference_low", r->diff_lo);
	ty_jsonw_kdouble(w, "difference_high", r->diff_hi);
	if (r->test != TY_TEST_MANN_WHITNEY)
		ty_jsonw_kdouble(w, "difference_halfwidth", e);
	ty_jsonw_kdouble(w, "relative_percent", r->rel);
	ty_jsonw_kdouble(w, "relative_low_percent", r->rel_lo);
	ty_jsonw_kdouble(w, "relative_high_percent", r->rel_hi);
	if (r->test != TY_TEST_MANN_WHITNEY)
		ty_jsonw_kdouble(w, "relative_halfwidth_percent", re);
	ty_jsonw_kdouble(w, "ratio", r->ratio);
	ty_jsonw_kdouble(w, "ratio_low", r->ratio_lo);
	ty_jsonw_kdouble(w, "ratio_high", r->ratio_hi);
	ty_jsonw_kdouble(w, "p_value", r->p_value);
	if (r->test == TY_TEST_STUDENT)
		ty_jsonw_kdouble(w, "pooled_s", r->pooled_s);
	if (r->test == TY_TEST_MANN_WHITNEY)
		ty_jsonw_kdouble(w, "u", r->u);
	else
		ty_jsonw_kdouble(w, "df", r->df);
	ty_jsonw_object_end(w);
}

static int
print_json(struct set *sets, int nsets, const struct opts *o)
{
	struct ty_jsonw w;
	struct ty_compare r;
	double e, re;
	int i, rc;

	ty_jsonw_init(&w, stdout, 1);
	ty_jsonw_object_begin(&w);
	ty_jsonw_kdouble(&w, "confidence", o->confidence);
	ty_jsonw_kstring(&w, "test", test_name(o->test));
	ty_jsonw_key(&w, "sets");
	ty_jsonw_array_begin(&w);
	for (i = 0; i < nsets; i++)
		json_set(&w, &sets[i], i);
	ty_jsonw_array_end(&w);
	if (!o->summary_only) {
		ty_jsonw_key(&w, "comparisons");
		ty_jsonw_array_begin(&w);
		for (i = 1; i < nsets; i++) {
			if ((rc = compare(&sets[0], &sets[i], o, &r, &e, &re)) < 0)
				return rc;
			json_comparison(&w, i, &r, e, re);
		}
		ty_jsonw_array_end(&w);
	}
	ty_jsonw_object_end(&w);
	fputc('\n', stdout);
	return 0;
}

/* ---- options and input ---- */

static const char usage_text[] =
    "usage: tachy stat [-Anqs] [-C column] [-c confidence] [-d delimiters] [-w width]\n"
    "                  [--test student|welch|mann-whitney] [--confidence P] [--json]\n"
    "                  [file ...]\n"
    "Compare data sets of numbers, one per line (FreeBSD ministat's output).\n"
    "With no file, or with -, the numbers are read from standard input.\n"
    "\n";

/* The default width: 74, or COLUMNS, or the terminal's width less 2. */
static int
default_width(void)
{
	struct winsize wsz;
	const char *p;

	if (!isatty(STDOUT_FILENO))
		return 74;
	if ((p = getenv("COLUMNS")) != NULL && *p != '\0')
		return atoi(p) >= 2 ? atoi(p) : 74;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &wsz) != -1 && wsz.ws_col >= 4)
		return wsz.ws_col - 2;
	return 74;
}

static int
parse_int_option(const char *s, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return *end == '\0' && errno != ERANGE && *v >= INT_MIN && *v <= INT_MAX;
}

/* The options of ministat keep its messages. */

static int
opt_column(const struct cli_option *opt, const char *typed, char **args)
{
	struct opts *o = opt->value;
	long v;

	(void)typed;
	if (!parse_int_option(args[0], &v))
		return cli_usage_error("Invalid column number.");
	if (v <= 0)
		return cli_usage_error("Column number should be positive.");
	o->column = (int)v;
	return 0;
}

static int
opt_level(const struct cli_option *opt, const char *typed, char **args)
{
	struct opts *o = opt->value;
	char *end;
	double a = strtod(args[0], &end);
	int i, ci;

	(void)typed;
	if (*end != '\0')
		return cli_usage_error("Not a floating point number");
	for (ci = -1, i = 0; i < NCONF; i++)
		if (a == conf_levels[i])
			ci = i;
	if (ci < 0)
		return cli_usage_error("No support for confidence level");
	if (o->conf_set & 2)
		return cli_usage_error("-c and --confidence exclude each other");
	o->level = ci;
	o->conf_set |= 1;
	o->confidence = a;
	return 0;
}

static int
opt_confidence(const struct cli_option *opt, const char *typed, char **args)
{
	struct opts *o = opt->value;
	char *end;
	double v = strtod(args[0], &end);

	if (end == args[0] || *end != '\0' || !(v > 0 && v < 100))
		return cli_bad_value(typed, args[0], "a level between 0 and 100, exclusive");
	if (o->conf_set & 1)
		return cli_usage_error("-c and --confidence exclude each other");
	o->confidence = v;
	o->level = -1;
	o->conf_set |= 2;
	return 0;
}

static int
opt_delim(const struct cli_option *opt, const char *typed, char **args)
{
	(void)typed;
	if (*args[0] == '\0')
		return cli_usage_error("Can't use empty delimiter string");
	((struct opts *)opt->value)->delim = args[0];
	return 0;
}

static int
opt_width(const struct cli_option *opt, const char *typed, char **args)
{
	long v;

	(void)typed;
	if (!parse_int_option(args[0], &v))
		return cli_usage_error("Invalid width, not a number.");
	if (v < 0)
		return cli_usage_error("Unable to move beyond left margin.");
	if (v < 2)
		return cli_usage_error("Invalid width, the plot needs 2 columns.");
	((struct opts *)opt->value)->width = (int)v;
	return 0;
}

/* Parse the options into O; returns 0 with the files in ARGS, else the
 * exit status. */
static int
parse_options(int argc, char **argv, struct opts *o, struct cli_args *args)
{
	struct cli_option options[] = {
	    OPT_FLAG('A', NULL, &o->no_plot, "print statistics only. suppress the graph."),
	    OPT_CALLBACK('C', NULL, o, "column",
			 "column number to extract (starts and defaults to 1)", opt_column),
	    OPT_CALLBACK('c', NULL, o, "confidence",
			 "confidence level of the test: 80, 90, 95 (default), 98,\n"
			 "99 or 99.5 percent",
			 opt_level),
	    OPT_CALLBACK('d', NULL, o, "delimiters", "delimiter(s) string, default to \" \\t\"",
			 opt_delim),
	    OPT_FLAG('n', NULL, &o->summary_only, "print summary statistics only, no graph/test"),
	    OPT_FLAG('q', NULL, &o->quiet,
		     "suppress printing summary-statistics headers and\ndata-set names"),
	    OPT_FLAG('s', NULL, &o->separate, "print avg/median/stddev bars on separate lines"),
	    OPT_CALLBACK('w', NULL, o, "width",
			 "width of graph/test output (default 74 or terminal width)", opt_width),
	    OPT_TEST(0, &o->test, "student (pooled, default), welch, or mann-whitney"),
	    OPT_CALLBACK(0, "confidence", o, "P", "any confidence level in (0, 100), t computed",
			 opt_confidence),
	    OPT_FLAG(0, "json", &o->json, "print every figure as JSON instead of text"),
	    OPT_HELP(0, "help", "this help"),
	    OPT_END(),
	};
	/* stop at the first file, as BSD getopt does */
	const struct cli_parser parser = {usage_text, options, NULL, CLI_STOP_AT_OPERAND, 22};

	o->width = default_width();
	return cli_parse(&parser, argc, argv, args);
}

/* Open every file first, as ministat does, so that a missing file is
 * reported before any data. FDS[i] is -1 for standard input. */
static int
open_all(char **files, int n, int *fds)
{
	int i;

	for (i = 0; i < n; i++) {
		if (!strcmp(files[i], "-")) {
			fds[i] = STDIN_FILENO;
			continue;
		}
		fds[i] = open(files[i], O_RDONLY | O_CLOEXEC);
		if (fds[i] < 0)
			return cli_error(EXIT_USAGE, "Cannot open %s: %s", files[i],
					 strerror(errno));
	}
	return 0;
}

struct reading {
	struct set *sets;
	struct ty_numbers *nums;
};

/* Set I read: its summary, on the thread that read it. */
static void
summarize(size_t i, void *arg)
{
	struct reading *rd = arg;

	if (rd->nums[i].n >= 3)
		ty_stats_summarize_inplace(rd->nums[i].v, rd->nums[i].n, &rd->sets[i].s);
}

/* The threads to read with: the CPUs this process may run on. */
static unsigned
cpus_allowed(void)
{
	cpu_set_t cs;
	int n;

	if (sched_getaffinity(0, sizeof(cs), &cs) == 0 && (n = CPU_COUNT(&cs)) > 0)
		return (unsigned)n;
	return 1;
}

/* Read and summarize the NSETS sets from FDS, on the CPUs there are (big
 * files are mapped and parsed at once); the first set that fails, in
 * order, gives the message, as if they were read one after another. */
static int
read_sets(struct set *sets, int nsets, const int *fds, const struct opts *o)
{
	struct ty_numfile nf = {o->column, o->delim};
	struct ty_error errs[MAX_SETS];
	struct ty_numbers nums[MAX_SETS];
	const char *names[MAX_SETS];
	struct reading rd = {sets, nums};
	int rcs[MAX_SETS], i;

	for (i = 0; i < nsets; i++) {
		names[i] = sets[i].name;
		nums[i] = sets[i].nums;
	}
	if (ty_numfile_read_many(fds, names, (size_t)nsets, &nf, cpus_allowed(), summarize, &rd,
				 nums, rcs, errs) < 0)
		return cli_error(EXIT_RUNTIME, "out of memory");
	for (i = 0; i < nsets; i++)
		sets[i].nums = nums[i];
	for (i = 0; i < nsets; i++) {
		struct set *set = &sets[i];

		if (rcs[i] == -ENOMEM)
			return cli_error(EXIT_RUNTIME, "%s", errs[i].msg);
		if (rcs[i] < 0)
			return cli_error(EXIT_USAGE, "%s", errs[i].msg);
		if (set->nums.n < 3)
			return cli_error(EXIT_USAGE,
					 "Dataset %s must contain at least 3 data points",
					 set->name);
		/* the sum and the squares are scaled when they overflow
		 * (stats.c): only a mean or deviation beyond DBL_MAX is left */
		if (!isfinite(set->s.mean) || !isfinite(set->s.stddev))
			return cli_error(EXIT_USAGE,
					 "Dataset %s has values too large: %s is beyond what a "
					 "double holds; give them in a larger unit",
					 set->name,
					 isfinite(set->s.mean) ? "the standard deviation"
							       : "the mean");
	}
	return 0;
}

/* The first figure of a comparison that is beyond a double (infinite or
 * NaN: the difference of two sets near DBL_MAX, a change relative to a mean
 * of 0 or of 1e-300), by the name the output gives it; NULL when all are
 * finite. Text output with Student's t shows no figure when no difference
 * is proven; JSON shows them all. */
static const char *
unprintable(const struct ty_compare *r, double e, double re, const struct opts *o)
{
	const struct {
		const char *name;
		double v;
		int shown;
	} f[] = {
	    {"the difference", r->diff, 1},
	    {"the difference's interval", r->diff_lo, 1},
	    {"the difference's interval", r->diff_hi, 1},
	    {"the difference's half-width", e, r->test != TY_TEST_MANN_WHITNEY},
	    {"the relative difference", r->rel, 1},
	    {"the relative difference's interval", r->rel_lo, 1},
	    {"the relative difference's interval", r->rel_hi, 1},
	    {"the relative half-width", re, r->test != TY_TEST_MANN_WHITNEY},
	    {"the pooled standard deviation", r->pooled_s, r->test == TY_TEST_STUDENT},
	    {"the p-value", r->p_value, r->test != TY_TEST_STUDENT || o->json},
	    {"the degrees of freedom", r->df, r->test == TY_TEST_WELCH || o->json},
	};
	size_t i;

	if (!o->json && r->test == TY_TEST_STUDENT && !r->significant)
		return NULL;
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (f[i].shown && !isfinite(f[i].v) &&
		    !(unbounded(r) && strstr(f[i].name, "interval")))
			return f[i].name;
	return NULL;
}

/* Refuse (exit 2) before printing anything when a comparison has a figure
 * that a double cannot hold: tachy stat never prints inf or nan. */
static int
check_comparisons(const struct set *sets, int nsets, const struct opts *o)
{
	struct ty_compare r;
	const char *what;
	double e, re;
	int i, rc;

	if (o->summary_only)
		return 0;
	for (i = 1; i < nsets; i++) {
		if ((rc = compare(&sets[0], &sets[i], o, &r, &e, &re)) < 0)
			return cli_error(EXIT_RUNTIME, "out of memory");
		if (!(what = unprintable(&r, e, re, o)))
			continue;
		if (sets[0].s.mean == 0 && strstr(what, "relative"))
			return cli_error(EXIT_USAGE,
					 "%s of %s against %s has no value: %s's mean is 0; put a "
					 "data set with a mean other than 0 first, or use -n for "
					 "the summaries alone",
					 what, sets[i].name, sets[0].name, sets[0].name);
		return cli_error(EXIT_USAGE,
				 "%s of %s against %s is beyond what a double holds; compare "
				 "data sets in a smaller unit, or use -n for the summaries alone",
				 what, sets[i].name, sets[0].name);
	}
	return 0;
}

static int
run(char **files, int nfiles, struct set *sets, const struct opts *o)
{
	int fds[MAX_SETS], i, rc, nsets = nfiles ? nfiles : 1;

	if (nfiles == 0) {
		sets[0].name = "<stdin>";
		fds[0] = STDIN_FILENO;
	} else {
		for (i = 0; i < nfiles; i++) {
			sets[i].name = files[i];
			fds[i] = -1;
		}
		if ((rc = open_all(files, nfiles, fds)) != 0)
			goto out;
	}
	rc = read_sets(sets, nsets, fds, o);
	if (rc)
		goto out;
	if ((rc = check_comparisons(sets, nsets, o)) != 0)
		goto out;
	rc = o->json ? print_json(sets, nsets, o) : print_text(sets, nsets, o);
	if (rc < 0)
		rc = cli_error(EXIT_RUNTIME, "out of memory");
	else
		rc = cli_finish_stdout(EXIT_OK);
out:
	for (i = 0; i < nsets; i++)
		if (fds[i] > STDIN_FILENO)
			close(fds[i]);
	return rc;
}

int cmd_stat(int argc, char **argv);

int
cmd_stat(int argc, char **argv)
{
	struct opts o = {.column = 1, .delim = " \t", .level = 2, .confidence = 95};
	struct set sets[MAX_SETS];
	struct cli_args args;
	int rc, i, nfiles;

	memset(sets, 0, sizeof(sets));
	rc = parse_options(argc, argv, &o, &args);
	if (rc)
		return rc == CLI_HELP_SHOWN ? cli_finish_stdout(EXIT_OK) : rc;
	nfiles = args.n;
	if (nfiles > MAX_SETS)
		return cli_usage_error("Too many datasets.");
	for (i = 0; i < MAX_SETS; i++)
		ty_numbers_init(&sets[i].nums);
	rc = run(args.v, nfiles, sets, &o);
	for (i = 0; i < MAX_SETS; i++)
		ty_numbers_release(&sets[i].nums);
	return rc;
}

const struct cmd_info cmd_info_stat = {
    "stat", 10, "compare data sets of numbers (a faster ministat)", cmd_stat};

/*
 * parse.c - the rule file of `kprof assert` (rules.h): one rule a line,
 * `#` to the end of a line a comment, blank lines skipped.
 *
 *   rule     := subject measure op bound
 *   subject  := lock STRING | thread (STRING | ID) | samples STRING
 *             | event STRING [field STRING] | span STRING | cpu [ID]
 *             | METRIC
 *   measure  := words ("wait p99", "latency max", "busy"; none for
 *               samples, the metric itself for a METRIC); where a
 *               measure ends in p99, any pNN or pNN.N (up to 4 decimals,
 *               above 0 and below 100) is one
 *   op       := < | <= | > | >= | == | !=
 *   bound    := [-]NUMBER [ns | us | ms | s | %]
 *
 * Strings are in double quotes (\" and \\ inside).  Every error names its
 * line and column and what would have been accepted there; all of a
 * file's errors are reported, not only the first, each with the rule's
 * bytes that are not printable escaped (\xNN), as the rule's own lines on
 * stdout are (assert.c).
 */
#include "tools/kprof/assert/rules.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tools/kprof/metrics/metrics.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/utf8.h"

#define RULES_MAX (16u << 20) /* bytes: a rule file is lines of rules, never this */

enum tok_kind { T_WORD, T_STRING, T_NUMBER, T_OP, T_END };

struct tok {
	enum tok_kind kind;
	unsigned col;                 /* from 1                                    */
	char text[128];               /* a word, a string's contents, a number     */
	enum kp_op op;
};

struct line_ctx {
	const char *path;
	unsigned line;
	bool bad;
};

static bool fail(struct line_ctx *c, unsigned col, const char *fmt, const char *a, const char *b)
{
	char msg[2400], out[4 * sizeof(msg)], path[1024];

	snprintf(msg, sizeof(msg), fmt, a, b);
	fprintf(stderr, "%s:%u:%u: %s\n", kp_printable(path, sizeof(path), c->path), c->line, col,
		kp_printable(out, sizeof(out), msg));
	c->bad = true;
	return false;
}

/* The next token of s from *i. */
static bool next_tok(struct line_ctx *c, const char *s, size_t *i, struct tok *t)
{
	static const struct { const char *text; enum kp_op op; } ops[] = {
		{ "<=", KP_OP_LE }, { ">=", KP_OP_GE }, { "==", KP_OP_EQ }, { "!=", KP_OP_NE },
		{ "<", KP_OP_LT }, { ">", KP_OP_GT },
	};
	size_t n = 0;

	while (s[*i] == ' ' || s[*i] == '\t')
		(*i)++;
	*t = (struct tok){ .col = (unsigned)*i + 1 };
	if (!s[*i] || s[*i] == '#') {
		t->kind = T_END;
		return true;
	}
	if (s[*i] == '"') {
		for ((*i)++; s[*i] && s[*i] != '"'; (*i)++) {
			if (s[*i] == '\\' && (s[*i + 1] == '"' || s[*i + 1] == '\\'))
				(*i)++;
			if (n + 1 >= sizeof(t->text))
				return fail(c, t->col, "a name longer than %s bytes%s", "127", "");
			t->text[n++] = s[*i];
		}
		if (!s[*i])
			return fail(c, t->col, "a string with no closing quote%s%s", "", "");
		(*i)++;
		t->kind = T_STRING;
		return true;
	}
	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
		if (!strncmp(s + *i, ops[k].text, strlen(ops[k].text))) {
			*i += strlen(ops[k].text);
			t->kind = T_OP;
			t->op = ops[k].op;
			snprintf(t->text, sizeof(t->text), "%s", ops[k].text);
			return true;
		}
	if (s[*i] == '=')
		return fail(c, t->col, "'=' is not a comparison: write == (or <, <=, >, >=, !=)%s%s", "", "");
	size_t d = s[*i] == '-'; /* a negative bound: "min >= -50" */
	bool number = isdigit((unsigned char)s[*i + d]) || (s[*i + d] == '.' && isdigit((unsigned char)s[*i + d + 1]));
	if (d && number)
		t->text[n++] = s[(*i)++];
	if (!number && !isalpha((unsigned char)s[*i]) && s[*i] != '_') {
		char ch[16];
		if (isprint((unsigned char)s[*i]))
			snprintf(ch, sizeof(ch), "'%c'", s[*i]);
		else
			snprintf(ch, sizeof(ch), "byte 0x%02x", (unsigned char)s[*i]);
		return fail(c, t->col, "unexpected %s: a rule is words, \"quoted names\", a comparison and a number%s",
			    ch, "");
	}
	while (s[*i] && (isalnum((unsigned char)s[*i]) || strchr("_-.%", s[*i]))) {
		if (n + 1 >= sizeof(t->text))
			return fail(c, t->col, "a word longer than %s bytes%s", "127", "");
		t->text[n++] = s[(*i)++];
	}
	t->kind = number ? T_NUMBER : T_WORD;
	return true;
}

/* The line's tokens, T_END last; false on a bad token. */
static bool tokens(struct line_ctx *c, const char *s, struct tok *t, size_t max, size_t *n)
{
	size_t i = 0;

	for (*n = 0; *n < max; (*n)++) {
		if (!next_tok(c, s, &i, &t[*n]))
			return false;
		if (t[*n].kind == T_END)
			return true;
	}
	return fail(c, t[max - 1].col, "too many words in one rule%s%s", "", "");
}


static const char *const subject_what[] = {
	[KP_SUBJ_METRIC] = "the run", [KP_SUBJ_LOCK] = "a lock", [KP_SUBJ_THREAD] = "a thread",
	[KP_SUBJ_SAMPLES] = "a function's samples", [KP_SUBJ_EVENT] = "an event type", [KP_SUBJ_CPU] = "a CPU",
	[KP_SUBJ_FIELD] = "an event field", [KP_SUBJ_SPAN] = "a span type", [KP_SUBJ_NOISE] = "the noise",
	[KP_SUBJ_TIMER] = "the timer pass",
};

/* A percentile word, p50 or p99.9: its value as num / scale percent. */
static bool percentile(const char *w, uint32_t *num, uint32_t *scale)
{
	uint64_t v = 0, sc = 1;
	size_t i = 1, decimals = 0;
	bool point = false;

	if (w[0] != 'p' || !isdigit((unsigned char)w[1]))
		return false;
	for (; w[i]; i++) {
		if (w[i] == '.' && !point && isdigit((unsigned char)w[i + 1])) {
			point = true;
			continue;
		}
		if (!isdigit((unsigned char)w[i]) || i > 8 || (point && ++decimals > 4))
			return false;
		v = v * 10 + (uint64_t)(w[i] - '0');
		sc *= point ? 10 : 1;
	}
	*num = (uint32_t)v;
	*scale = (uint32_t)sc;
	return v > 0 && v < 100 * sc;
}

/* "a, b, c" of the subject's measures. */
static const char *measure_list(enum kp_subject s, char *buf, size_t size, const char **names, size_t *n)
{
	size_t len = 0;

	buf[0] = 0;
	*n = 0;
	for (const struct kp_measure_def *d = kp_rule_measures(s); d->name && len < size; d++) {
		size_t nl = strlen(d->name);
		bool pct = nl >= 3 && !strcmp(d->name + nl - 3, "p99"); /* any percentile */
		len += (size_t)snprintf(buf + len, size - len, "%s%.*s%s", *n ? ", " : "", (int)(pct ? nl - 3 : nl),
					d->name, pct ? "pNN (p50, p99, p99.9, ...)" : "");
		names[(*n)++] = d->name;
	}
	return buf;
}

/* The measure words from t[*k] up to the comparison. */
static bool take_measure(struct line_ctx *c, struct kp_rule *r, const struct tok *t, size_t *k, const char *first)
{
	char want[128] = "", list[600], near[400], msg[2048];
	const char *names[64];
	size_t n, len = 0;
	unsigned col = first ? t[*k - 1].col : t[*k].col;

	if (first)
		len = (size_t)snprintf(want, sizeof(want), "%s", first);
	for (; t[*k].kind == T_WORD && len < sizeof(want); (*k)++)
		len += (size_t)snprintf(want + len, sizeof(want) - len, "%s%s", len ? " " : "", t[*k].text);
	snprintf(r->measure_text, sizeof(r->measure_text), "%s", want);
	/* "wait p99.9": the measure "wait p99" at that percentile */
	char *last = strrchr(want, ' ') ? strrchr(want, ' ') + 1 : want;
	uint32_t num = 99, scale = 1;
	if (percentile(last, &num, &scale))
		snprintf(last, sizeof(want) - (size_t)(last - want), "p99");
	for (const struct kp_measure_def *d = kp_rule_measures(r->subject); d->name; d++)
		if (!strcmp(d->name, want)) {
			r->measure = d;
			r->pct_num = num, r->pct_scale = scale;
			return true;
		}
	snprintf(want, sizeof(want), "%s", r->measure_text);
	if (r->subject == KP_SUBJ_LOCK && !strcmp(want, "contended"))
		return fail(c, col, "say which contended figure: \"contended traced\" (of the traced acquisitions, "
			    "which sampling fills with the contended ones) or \"contended est\" (estimated over all "
			    "acquisitions from the sampling rates, as the report's estimate line)%s%s", "", "");
	measure_list(r->subject, list, sizeof(list), names, &n);
	kp_near_names(want, names, n, near, sizeof(near));
	if (r->subject == KP_SUBJ_METRIC)
		snprintf(msg, sizeof(msg), "unknown metric \"%s\"%s%s; metrics: %s; or a subject: lock \"NAME\", "
			 "thread \"NAME\", samples \"FUNCTION\", event \"NAME\", span \"NAME\", cpu [N]", want, near[0] ? "; did you mean " : "",
			 near, list);
	else if (!want[0])
		snprintf(msg, sizeof(msg), "%s needs a measure before the comparison: %s", subject_what[r->subject], list);
	else
		snprintf(msg, sizeof(msg), "unknown measure \"%s\" of %s%s%s; it has: %s", want, subject_what[r->subject],
			 near[0] ? "; did you mean " : "", near, list);
	return fail(c, col, "%s%s", msg, "");
}


/* NUMBER [UNIT] as the measure admits it. */
static bool take_bound(struct line_ctx *c, struct kp_rule *r, const struct tok *t, size_t *k)
{
	static const struct { const char *unit; double scale; unsigned kind; } units[] = {
		{ "ns", 1e-9, KP_KIND_TIME }, { "us", 1e-6, KP_KIND_TIME }, { "ms", 1e-3, KP_KIND_TIME },
		{ "s", 1, KP_KIND_TIME }, { "%", 1, KP_KIND_SHARE }, { "", 1, KP_KIND_COUNT },
	};
	const struct tok *v = &t[*k];
	char num[128], *end, unit[128];

	if (v->kind != T_NUMBER)
		return fail(c, v->col, "a number after the comparison, with its unit: ns, us, ms, s, %% or none for a "
			    "count%s%s", "", "");
	snprintf(num, sizeof(num), "%s", v->text);
	errno = 0;
	r->bound = strtod(num, &end);
	snprintf(unit, sizeof(unit), "%s", end);
	snprintf(r->bound_text, sizeof(r->bound_text), "%s", v->text);
	(*k)++;
	if (!unit[0] && t[*k].kind == T_WORD) { /* "50 us" */
		snprintf(unit, sizeof(unit), "%s", t[*k].text);
		snprintf(r->bound_text + strlen(r->bound_text), sizeof(r->bound_text) - strlen(r->bound_text), " %s",
			 t[(*k)++].text);
	}
	if (errno || end == num)
		return fail(c, v->col, "\"%s\" is not a number%s", v->text, "");
	for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
		if (strcmp(unit, units[u].unit))
			continue;
		r->kind = units[u].kind;
		r->bound *= units[u].scale;
		if (r->kind == KP_KIND_COUNT && r->bound == 0 && (r->measure->kinds & KP_KIND_TIME))
			r->kind = KP_KIND_TIME; /* a bare 0 is any unit's */
		if (r->measure->kinds & r->kind)
			return true;
		const char *wants = r->measure->kinds & KP_KIND_TIME ? "a time (ns, us, ms or s)"
				    : r->measure->kinds & KP_KIND_SHARE && r->measure->kinds & KP_KIND_COUNT
					? "a count (no unit) or a share (%)"
				    : r->measure->kinds & KP_KIND_SHARE ? "a share (%)"
				    : r->subject == KP_SUBJ_FIELD ? "a number (no unit: the field's own)" : "a count (no unit)";
		char msg[700];
		snprintf(msg, sizeof(msg), "\"%s\" has the wrong unit: %s%s%s takes %s", r->bound_text,
			 subject_what[r->subject], r->measure->name[0] ? "'s " : "", r->measure->name, wants);
		return fail(c, v->col, "%s%s", msg, "");
	}
	return fail(c, v->col, "unknown unit \"%s\": ns, us, ms, s, %% or none for a count%s", unit, "");
}

/* The subject; *k is then at the first measure word. */
static bool take_subject(struct line_ctx *c, struct kp_rule *r, const struct tok *t, size_t *k, const char **first)
{
	static const struct { const char *word; enum kp_subject s; } subjects[] = {
		{ "lock", KP_SUBJ_LOCK }, { "thread", KP_SUBJ_THREAD }, { "samples", KP_SUBJ_SAMPLES },
		{ "event", KP_SUBJ_EVENT }, { "cpu", KP_SUBJ_CPU }, { "span", KP_SUBJ_SPAN },
		{ "noise", KP_SUBJ_NOISE }, { "timer", KP_SUBJ_TIMER },
	};
	*first = NULL;
	if (t[0].kind != T_WORD)
		return fail(c, t[0].col, "a rule starts with a metric or a subject (lock, thread, samples, event, span, "
			    "cpu, noise, timer), not \"%s\"%s", t[0].text, "");
	*k = 1;
	r->subject = KP_SUBJ_METRIC;
	for (size_t i = 0; i < sizeof(subjects) / sizeof(subjects[0]); i++)
		if (!strcmp(t[0].text, subjects[i].word))
			r->subject = subjects[i].s;
	if (r->subject == KP_SUBJ_SAMPLES && t[1].kind != T_STRING)
		r->subject = KP_SUBJ_METRIC; /* `samples > 100`: the metric */
	if (r->subject == KP_SUBJ_METRIC) {
		*first = t[0].text;
		return true;
	}
	if (r->subject == KP_SUBJ_CPU || r->subject == KP_SUBJ_NOISE || r->subject == KP_SUBJ_TIMER ||
	    (r->subject == KP_SUBJ_THREAD && t[1].kind == T_NUMBER)) {
		if (t[1].kind == T_NUMBER) {
			char *end;
			r->by_id = true;
			r->id = (uint32_t)strtoul(t[1].text, &end, 10);
			if (*end)
				return fail(c, t[1].col, "\"%s\" is not a %s number", t[1].text, t[0].text);
			(*k)++;
		}
		return true;
	}
	if (t[1].kind != T_STRING)
		return fail(c, t[1].col, "%s needs a name in double quotes after it (%s \"NAME\")", t[0].text, t[0].text);
	snprintf(r->name, sizeof(r->name), "%s", t[1].text);
	(*k)++;
	if (r->subject == KP_SUBJ_EVENT && t[2].kind == T_WORD && !strcmp(t[2].text, "field")) {
		if (t[3].kind != T_STRING)
			return fail(c, t[3].col, "field needs the field's name in double quotes (event \"%s\" field "
				    "\"NAME\")%s", r->name, "");
		r->subject = KP_SUBJ_FIELD;
		snprintf(r->field, sizeof(r->field), "%s", t[3].text);
		*k += 2;
	}
	return true;
}

/* One line: false when it holds no rule (blank, comment) or a bad one. */
static bool parse_line(struct line_ctx *c, const char *s, struct kp_rule *r)
{
	struct tok t[24];
	size_t n, k = 0;
	const char *first;

	*r = (struct kp_rule){ .line = c->line };
	if (!tokens(c, s, t, sizeof(t) / sizeof(t[0]), &n) || !n)
		return false;
	size_t len = strcspn(s, "#");
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	size_t lead = strspn(s, " \t");
	snprintf(r->text, sizeof(r->text), "%.*s", (int)(len - lead), s + lead);
	if (!take_subject(c, r, t, &k, &first) || !take_measure(c, r, t, &k, first))
		return false;
	if (t[k].kind != T_OP)
		return fail(c, t[k].col, "a comparison (<, <=, >, >=, ==, !=) here, not %s%s",
			    t[k].kind == T_END ? "the end of the line" : t[k].text, "");
	r->op = t[k++].op;
	if (!take_bound(c, r, t, &k))
		return false;
	if (t[k].kind != T_END)
		return fail(c, t[k].col, "\"%s\" after the bound: one rule a line (# starts a comment)%s", t[k].text, "");
	return true;
}

/* The next line of f into buf (its '\n' left out, cut to fit, so a line
 * costs no more memory however long it is): 0, 1 when it was cut, -1 at
 * the end, -2 past RULES_MAX bytes in all. */
static int next_line(FILE *f, char *buf, size_t size, uint64_t *total)
{
	size_t len = 0;
	int ch = EOF;

	while ((ch = getc(f)) != EOF && ch != '\n') {
		if (++*total > RULES_MAX)
			return -2;
		if (len + 1 < size)
			buf[len] = (char)ch;
		len++;
	}
	buf[len + 1 < size ? len : size - 1] = 0;
	if (ch == EOF && !len)
		return -1;
	++*total;
	return len + 1 >= size;
}

int kp_rules_read(const char *path, struct kp_rule **rules, size_t *n)
{
	FILE *f = fopen(path, "r");
	struct line_ctx c = { .path = path };
	char line[2048], shown[1024];
	size_t room = 0;
	uint64_t total = 0;
	struct stat st;
	int got;

	*rules = NULL;
	*n = 0;
	kp_printable(shown, sizeof(shown), path);
	if (!f || fstat(fileno(f), &st) || S_ISDIR(st.st_mode)) { /* a directory opens, and reads as nothing */
		fprintf(stderr, "kprof: cannot read the rule file %s: %s\n", shown,
			f && S_ISDIR(st.st_mode) ? "it is a directory" : strerror(errno));
		if (f)
			fclose(f);
		return 3;
	}
	while ((got = next_line(f, line, sizeof(line), &total)) >= 0) {
		struct kp_rule r;
		c.line++;
		line[strcspn(line, "\r\n")] = 0;
		if (got || strlen(line) >= sizeof(r.text)) {
			fail(&c, (unsigned)sizeof(r.text), "a line longer than %s bytes: one rule a line%s", "1023", "");
			continue;
		}
		if (!parse_line(&c, line, &r))
			continue;
		*rules = kp_grow(*rules, &room, *n + 1, sizeof(**rules));
		(*rules)[(*n)++] = r;
	}
	bool err = ferror(f);
	fclose(f);
	if (got == -2 || err) {
		if (got == -2)
			fprintf(stderr, "kprof: the rule file %s is longer than %u MiB: not a rule file (one rule a line)\n",
				shown, RULES_MAX >> 20);
		else
			fprintf(stderr, "kprof: cannot read the rule file %s: %s\n", shown, strerror(errno));
		free(*rules);
		*rules = NULL;
		*n = 0;
		return 3;
	}
	if (!c.bad && !*n) {
		fprintf(stderr, "%s: no rules in the file (one rule a line, such as: lost == 0)\n", shown);
		return 2;
	}
	if (c.bad) {
		free(*rules);
		*rules = NULL;
		*n = 0;
		return 2;
	}
	return 0;
}

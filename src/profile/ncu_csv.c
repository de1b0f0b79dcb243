/* src/profile/ncu_csv.c — `ncu --csv --page raw --print-units base` output -> struct
 * profile_metrics.
 *
 * The raw page is one wide table: a header record of column names (first "ID", then
 * "Process ID", ..., "Kernel Name", ..., then one column per metric), a record of units
 * ("" for the non-metric columns, "%", "nsecond", "block", ...), then one record per
 * profiled launch. Values are quoted and may carry thousands separators ("1,234.5");
 * a value that is no such number (a decimal comma, "inf"), a negative one or a
 * percentage outside 0..100 is an error naming the metric, and the table is not used.
 * ncu's own "==PROF==" lines may precede the table when it shares the log.
 *
 * Each field maps to a list of metric names, first present wins: ncu versions and
 * chips differ in which of the equivalent names a section collects (docs/profiling.md).
 */
#include "profile.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "csv.h"

struct table_view {
    const struct csv_record *header, *units, *row;
};

enum unit_kind { U_PLAIN, U_TIME_US };

struct metric_map {
    size_t offset; /* of the double in struct profile_metrics */
    enum unit_kind kind;
    const char *names[4];
};

#define FIELD(f) offsetof(struct profile_metrics, f)

static const struct metric_map metric_maps[] = {
    {FIELD(sm_throughput_pct), U_PLAIN, {"sm__throughput.avg.pct_of_peak_sustained_elapsed"}},
    /* The GMMA (wgmma) pipe is Hopper's tensor pipe; older names are fallbacks. */
    {FIELD(tensor_pipe_pct), U_PLAIN,
     {"sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active",
      "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
      "sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_active",
      "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"}},
    {FIELD(dram_throughput_pct), U_PLAIN,
     {"dram__throughput.avg.pct_of_peak_sustained_elapsed",
      "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"}},
    {FIELD(l2_throughput_pct), U_PLAIN, {"lts__throughput.avg.pct_of_peak_sustained_elapsed"}},
    {FIELD(smem_throughput_pct), U_PLAIN,
     {"l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed"}},
    {FIELD(achieved_occupancy_pct), U_PLAIN, {"sm__warps_active.avg.pct_of_peak_sustained_active"}},
    {FIELD(theoretical_occupancy_pct), U_PLAIN, {"sm__maximum_warps_per_active_cycle_pct"}},
    {FIELD(duration_us), U_TIME_US, {"gpu__time_duration.sum", "gpu__time_duration.avg"}},
    {FIELD(memory_throughput_pct), U_PLAIN,
     {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"}},
    {FIELD(l1tex_throughput_pct), U_PLAIN,
     {"l1tex__throughput.avg.pct_of_peak_sustained_active",
      "l1tex__throughput.avg.pct_of_peak_sustained_elapsed"}},
    {FIELD(occ_limit_registers), U_PLAIN, {"launch__occupancy_limit_registers"}},
    {FIELD(occ_limit_shared_mem), U_PLAIN, {"launch__occupancy_limit_shared_mem"}},
    {FIELD(occ_limit_warps), U_PLAIN, {"launch__occupancy_limit_warps"}},
    {FIELD(occ_limit_blocks), U_PLAIN, {"launch__occupancy_limit_blocks"}},
    {FIELD(registers_per_thread), U_PLAIN, {"launch__registers_per_thread"}},
    {FIELD(waves_per_sm), U_PLAIN, {"launch__waves_per_multiprocessor"}},
};

/* Stall reasons the struct names; the rest only count towards the total. */
static const struct {
    const char *reason;
    size_t offset;
} stall_fields[] = {
    {"long_scoreboard", FIELD(stall_long_scoreboard_pct)},
    {"barrier", FIELD(stall_barrier_pct)},
    {"no_instruction", FIELD(stall_no_instruction_pct)},
    {"wait", FIELD(stall_wait_pct)},
    {"math_pipe_throttle", FIELD(stall_math_pipe_throttle_pct)},
    {"mio_throttle", FIELD(stall_mio_throttle_pct)},
    {"short_scoreboard", FIELD(stall_short_scoreboard_pct)},
    {"sleeping", FIELD(stall_sleeping_pct)},
};

/* Per-reason stall metrics, in the order tried: WarpStateStats' average warp cycles per
 * issued instruction spent in each state, then the newer latency form, then PC
 * sampling counts. A family is used only if at least one of its columns is present. */
static const struct {
    const char *prefix, *suffix;
} stall_families[] = {
    {"smsp__average_warps_issue_stalled_", "_per_issue_active.ratio"},
    {"smsp__average_warp_latency_issue_stalled_", ".ratio"},
    {"smsp__pcsamp_warps_issue_stalled_", ""},
};

void profile_metrics_init(struct profile_metrics *m)
{
    double *d = (double *)m;
    /* Every member before top_stall is a double (checked below). */
    for (size_t i = 0; i < offsetof(struct profile_metrics, top_stall) / sizeof(double); i++)
        d[i] = NAN;
    m->top_stall[0] = '\0';
    m->top_stall_pct = NAN;
}
_Static_assert(offsetof(struct profile_metrics, top_stall) % sizeof(double) == 0,
               "profile_metrics: doubles must precede top_stall");

static double *field_at(struct profile_metrics *m, size_t offset)
{
    return (double *)((char *)m + offset);
}

static const char *cell(const struct csv_record *r, int col)
{
    return (col >= 0 && (size_t)col < r->n) ? r->fields[col] : "";
}

/* A cell's number, ncu's way: "1,234.5" (thousands separators in groups of three before
 * the point) is 1234.5. 0 with *out; 1 absent ("" or "n/a": ncu could not collect it);
 * -1 with *why for anything else, so a value ncu never writes is refused rather than
 * misread: "87,1" (a decimal comma: stripping the comma would give 871), "inf", "nan",
 * text. */
static int parse_number(const char *s, double *out, const char **why)
{
    char buf[64];
    size_t n = 0, len;
    while (*s == ' ')
        s++;
    len = strlen(s);
    while (len && s[len - 1] == ' ')
        len--;
    if (!len || (len == 3 && !strncasecmp(s, "n/a", 3)))
        return 1;
    /* the integer part: digits, with commas only as thousands separators */
    size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0, digits = 0, group = 0;
    bool comma = false;
    for (; i < len && s[i] != '.' && s[i] != 'e' && s[i] != 'E'; i++) {
        if (s[i] == ',') {
            if (!digits || (comma ? group != 3 : group > 3)) {
                *why = "a comma that is no thousands separator (a decimal comma?)";
                return -1;
            }
            comma = true;
            group = 0;
        } else if (s[i] >= '0' && s[i] <= '9') {
            digits++, group++;
        } else {
            break;
        }
    }
    if (comma && group != 3) {
        *why = "a comma that is no thousands separator (a decimal comma?)";
        return -1;
    }
    for (size_t j = 0; j < len && n + 1 < sizeof buf; j++)
        if (s[j] != ',' || j >= i)
            buf[n++] = s[j];
    buf[n] = '\0';
    char *end;
    double v = strtod(buf, &end);
    if (n >= sizeof buf - 1 || *end || end == buf || memchr(buf, ',', n)) {
        *why = "not a number";
        return -1;
    }
    if (!isfinite(v)) {
        *why = "not a finite number";
        return -1;
    }
    *out = v;
    return 0;
}

/* Column col of the view's launch row as a metric value: NAN when absent; -1 with err
 * naming the metric when it is no number, negative (no metric read here can be), or a
 * percentage (unit "%", or a "pct" name without a units row) outside 0..100. */
static int metric_value(const struct table_view *v, int col, double *out, char *err, size_t errlen)
{
    const char *name = v->header->fields[col], *text = cell(v->row, col), *why = NULL;
    const char *unit = v->units ? cell(v->units, col) : "";
    *out = NAN;
    int rc = parse_number(text, out, &why);
    if (rc > 0)
        return 0;
    bool pct = !strcmp(unit, "%") || (!v->units && strstr(name, "pct"));
    if (rc == 0 && *out < 0)
        why = "negative";
    else if (rc == 0 && pct && *out > 100)
        why = "a percentage above 100";
    if (!why)
        return 0;
    *out = NAN;
    snprintf(err, errlen, "ncu metric '%.120s' is '%.40s'%s: %s; the profile is not used", name, text,
             pct ? " (a percentage, 0..100)" : "", why);
    return -1;
}

static double time_to_us(double v, const char *unit)
{
    if (!strcmp(unit, "nsecond") || !strcmp(unit, "ns"))
        return v / 1e3;
    if (!strcmp(unit, "msecond") || !strcmp(unit, "ms"))
        return v * 1e3;
    if (!strcmp(unit, "second") || !strcmp(unit, "s"))
        return v * 1e6;
    /* usecond, or no unit row: ncu's base time unit with --print-units base is nsecond,
     * but an explicit "usecond" is already right. */
    return (!unit[0]) ? v / 1e3 : v;
}


static int column_of(const struct csv_record *header, const char *name)
{
    for (size_t i = 0; i < header->n; i++)
        if (!strcmp(header->fields[i], name))
            return (int)i;
    return -1;
}


static int read_mapped(const struct table_view *v, struct profile_metrics *m, char *err, size_t errlen)
{
    for (size_t i = 0; i < sizeof metric_maps / sizeof *metric_maps; i++) {
        const struct metric_map *mm = &metric_maps[i];
        for (int k = 0; k < 4 && mm->names[k]; k++) {
            int col = column_of(v->header, mm->names[k]);
            double x;
            if (col < 0)
                continue;
            if (metric_value(v, col, &x, err, errlen))
                return -1;
            if (mm->kind == U_TIME_US && !isnan(x))
                x = time_to_us(x, v->units ? cell(v->units, col) : "");
            *field_at(m, mm->offset) = x;
            break;
        }
    }
    return 0;
}

/* Reason name of a stall column of one family ("long_scoreboard"), or NULL. */
static const char *stall_reason(const char *col, const char *prefix, const char *suffix,
                                char *out, size_t outlen)
{
    size_t lp = strlen(prefix), ls = strlen(suffix), lc = strlen(col);
    if (lc <= lp + ls || strncmp(col, prefix, lp) || strcmp(col + lc - ls, suffix))
        return NULL;
    size_t n = lc - lp - ls;
    /* "_not_issued" variants duplicate the issued ones; ".sum"-style sub-metrics of the
     * sampling family would double count. */
    if (n >= outlen || strstr(col + lp, "not_issued") || memchr(col + lp, '.', n))
        return NULL;
    memcpy(out, col + lp, n);
    out[n] = '\0';
    return out;
}

/* Shares of every stall reason of the first family present, in % of their sum. 0, or
 * -1 with err when a value of that family is no number or negative (metric_value). */
static int read_stalls(const struct table_view *v, struct profile_metrics *m, char *err, size_t errlen)
{
    char reason[64];
    for (size_t f = 0; f < sizeof stall_families / sizeof *stall_families; f++) {
        double total = 0, best = -1, x;
        int count = 0;
        for (size_t c = 0; c < v->header->n; c++) {
            if (!stall_reason(v->header->fields[c], stall_families[f].prefix, stall_families[f].suffix, reason,
                              sizeof reason))
                continue;
            if (metric_value(v, (int)c, &x, err, errlen))
                return -1;
            if (isnan(x))
                continue;
            total += x;
            count++;
        }
        if (!count)
            continue;
        for (size_t c = 0; c < v->header->n; c++) {
            if (!stall_reason(v->header->fields[c], stall_families[f].prefix, stall_families[f].suffix, reason,
                              sizeof reason) ||
                metric_value(v, (int)c, &x, err, errlen) || isnan(x))
                continue;
            double share = total > 0 ? 100.0 * x / total : 0.0;
            for (size_t s = 0; s < sizeof stall_fields / sizeof *stall_fields; s++)
                if (!strcmp(reason, stall_fields[s].reason))
                    *field_at(m, stall_fields[s].offset) = share;
            /* "selected" is the issuing state, not a stall. */
            if (share > best && strcmp(reason, "selected")) {
                best = share;
                snprintf(m->top_stall, sizeof m->top_stall, "%.47s", reason);
                m->top_stall_pct = share;
            }
        }
        return 0;
    }
    return 0;
}

static bool is_header(const struct csv_record *r)
{
    return r->n > 1 && !strcmp(r->fields[0], "ID") && column_of(r, "Kernel Name") >= 0;
}

/* The first launch row of kernel_name after the header (and units row). */
static int find_view(const struct csv_table *t, const char *kernel_name, struct table_view *v,
                     char *err, size_t errlen)
{
    size_t h = 0;
    while (h < t->n && !is_header(&t->rows[h]))
        h++;
    if (h == t->n) {
        snprintf(err, errlen, "no ncu raw CSV header (\"ID\", ..., \"Kernel Name\") in the output");
        return -1;
    }
    v->header = &t->rows[h];
    size_t first = h + 1;
    /* The units row has an empty "ID" cell; a launch row has a number there. */
    if (first < t->n && !t->rows[first].fields[0][0]) {
        v->units = &t->rows[first];
        first++;
    }
    /* A record with a cell fewer or more than the header shifts every later metric into
     * another metric's column (a latency-bound launch read as smem-bound, l1tex at 384%):
     * no cell of such a table can be trusted, so it is refused whole. */
    for (size_t i = h + 1; i < t->n; i++)
        if (t->rows[i].n != v->header->n) {
            char what[48];
            if (v->units == &t->rows[i])
                snprintf(what, sizeof what, "units");
            else
                snprintf(what, sizeof what, "launch ID '%.24s'", t->rows[i].fields[0]);
            snprintf(err, errlen, "ncu CSV record %zu (%s) has %zu cells, the header %zu: the table is "
                     "malformed and none of its metrics is used", i + 1, what, t->rows[i].n, v->header->n);
            return -1;
        }
    int kcol = column_of(v->header, "Kernel Name");
    for (size_t i = first; i < t->n; i++) {
        const char *name = cell(&t->rows[i], kcol);
        if (!kernel_name || strstr(name, kernel_name)) {
            v->row = &t->rows[i];
            return 0;
        }
    }
    snprintf(err, errlen, "ncu profiled no launch of '%s'", kernel_name ? kernel_name : "any kernel");
    return -1;
}

int profile_parse_ncu_csv(const char *text, const char *kernel_name, struct profile_metrics *m,
                          char *err, size_t errlen)
{
    struct csv_table t;
    struct table_view v = {0};
    profile_metrics_init(m);
    if (csv_parse(text, true, &t, err, errlen))
        return -1;
    int rc = find_view(&t, kernel_name, &v, err, errlen);
    if (!rc && (read_mapped(&v, m, err, errlen) || read_stalls(&v, m, err, errlen))) {
        profile_metrics_init(m); /* one bad value: none of the table is used */
        rc = -1;
    }
    csv_release(&t);
    return rc;
}

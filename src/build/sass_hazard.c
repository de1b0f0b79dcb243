/* src/build/sass_hazard.c — static check for the in-flight sparse-metadata hazard.
 *
 * A sparse wgmma (HGMMA.SP / QGMMA.SP) reads its metadata register while it executes,
 * until a WARPGROUP.DEPBAR retires its group, and ptxas does not protect that register
 * against a load that rewrites it (seen on the H200, 2026-11-29: docs/kernels.md). This
 * scan of cuobjdump -sass text reports the first instruction that writes a metadata
 * register of a group still in flight.
 *
 * Model (deliberately small): groups close at a GMMA carrying `gsb0`;
 * `WARPGROUP.DEPBAR.LE gsb0, 0xN` leaves the newest N closed groups in flight; any other
 * instruction whose first operand is a register (every SASS instruction that writes a
 * register names it first; stores, branches and barriers write none) is a write. A
 * backward branch taken with groups in flight rescans its loop body once with that state,
 * which is how the H200 case arose (the next iteration's load at the top of the loop).
 */
#include "nvcc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GROUPS 8
#define MAX_REGS 32

struct group {
    int regs[MAX_REGS];
    int n;
};

struct flight {
    struct group g[MAX_GROUPS]; /* closed groups, oldest first */
    int n;
    struct group open;          /* GMMAs issued since the last gsb0 */
};

struct insn {
    unsigned long addr;
    char op[64];
    char args[192];
};

/* One SASS line: the address in a C comment, an optional predicate (@!P0), the opcode
 * (HGMMA.SP.64x256x32.F32) and its operands up to the semicolon. */
static bool parse_insn(const char *line, size_t len, struct insn *in)
{
    char buf[320];
    snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), line);
    const char *p = strstr(buf, "/*");
    if (!p || sscanf(p, "/*%lx*/", &in->addr) != 1 || !(p = strstr(p, "*/")))
        return false;
    p += 2;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p == '@') /* predicate: the instruction may still execute */
        p += strcspn(p, " \t");
    int used = 0;
    if (sscanf(p, "%63s%n", in->op, &used) != 1)
        return false;
    snprintf(in->args, sizeof in->args, "%s", p + used);
    char *semi = strchr(in->args, ';');
    if (semi)
        *semi = '\0';
    return true;
}

/* Register number of operand i ("R152" -> 152), or -1. */
static int operand_reg(const char *args, int i)
{
    const char *p = args;
    for (int k = 0; k < i && p; k++)
        if ((p = strchr(p, ',')))
            p++;
    if (!p)
        return -1;
    while (*p == ' ')
        p++;
    int r;
    return p[0] == 'R' && sscanf(p + 1, "%d", &r) == 1 ? r : -1;
}

static bool in_flight(const struct flight *f, int reg)
{
    for (int i = 0; i <= f->n; i++) {
        const struct group *g = i < f->n ? &f->g[i] : &f->open;
        for (int j = 0; j < g->n; j++)
            if (g->regs[j] == reg)
                return true;
    }
    return false;
}

static bool writes_nothing(const char *op)
{
    static const char *const prefixes[] = {"ST", "BRA", "BAR", "SYNCS", "EXIT", "RET", "CALL", "WARPSYNC",
                                           "WARPGROUP", "UTMA", "UBLKCP", "NOP", "MEMBAR", "FENCE", "ERRBAR",
                                           "RED", "CCTL", "BSYNC", "BSSY", "YIELD", "ACQBULK", "UCGABAR"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (!strncmp(op, prefixes[i], strlen(prefixes[i])))
            return true;
    return op[0] == 'U'; /* uniform-datapath instructions write UR registers, not R */
}

static void gmma(struct flight *f, const struct insn *in)
{
    int meta = strstr(in->op, ".SP") ? operand_reg(in->args, 3) : -1;
    if (meta >= 0 && f->open.n < MAX_REGS)
        f->open.regs[f->open.n++] = meta;
    if (strstr(in->args, "gsb0")) {
        if (f->n == MAX_GROUPS) { /* keep the newest */
            memmove(&f->g[0], &f->g[1], sizeof f->g[0] * (MAX_GROUPS - 1));
            f->n--;
        }
        f->g[f->n++] = f->open;
        f->open.n = 0;
    }
}

static void depbar(struct flight *f, const struct insn *in)
{
    const char *c = strrchr(in->args, ',');
    unsigned long keep = c ? strtoul(c + 1, NULL, 0) : 0;
    if ((int)keep < f->n) {
        memmove(&f->g[0], &f->g[f->n - keep], sizeof f->g[0] * keep);
        f->n = (int)keep;
    }
}

/* One pass over lines [from, to); returns the hazard address or 0. A backward branch
 * with groups in flight is followed once (rescan = false inside the rescan). */
static unsigned long scan(const struct insn *v, size_t from, size_t to, struct flight *f, bool rescan, char *where,
                          size_t len)
{
    for (size_t i = from; i < to; i++) {
        const struct insn *in = &v[i];
        if (strstr(in->op, "GMMA")) {
            gmma(f, in);
        } else if (!strncmp(in->op, "WARPGROUP.DEPBAR", 16)) {
            depbar(f, in);
        } else if (!strcmp(in->op, "BRA") || !strncmp(in->op, "BRA.", 4)) {
            unsigned long target;
            const char *hex = strstr(in->args, "0x");
            if (rescan && hex && sscanf(hex, "%lx", &target) == 1 && target < in->addr && (f->n || f->open.n)) {
                size_t j = i;
                while (j > 0 && v[j - 1].addr >= target)
                    j--;
                struct flight copy = *f;
                unsigned long a = scan(v, j, i, &copy, false, where, len);
                if (a)
                    return a;
            }
        } else if (!writes_nothing(in->op)) {
            int r = operand_reg(in->args, 0);
            if (r >= 0 && in_flight(f, r)) {
                snprintf(where, len, "/*%04lx*/ %s%s writes R%d, the metadata of a sparse wgmma still in flight",
                         in->addr, in->op, in->args, r);
                return in->addr ? in->addr : 1;
            }
        }
    }
    return 0;
}

/* Check one function's instructions; keeps the first hazard found. */
static void check_function(const struct insn *v, size_t n, bool *found, char *where, size_t len)
{
    struct flight f = {.n = 0};
    if (!*found && n)
        *found = scan(v, 0, n, &f, true, where, len) != 0;
}

/* Does line[0..len) hold word? */
static bool line_has(const char *line, size_t len, const char *word)
{
    size_t wl = strlen(word);
    for (size_t i = 0; i + wl <= len; i++)
        if (line[i] == word[0] && !memcmp(line + i, word, wl))
            return true;
    return false;
}

bool build_sass_meta_hazard(const char *sass, char *where, size_t len)
{
    size_t cap = 4096, n = 0;
    struct insn *v = malloc(cap * sizeof *v);
    bool found = false;
    for (const char *p = sass; v && p && *p;) {
        size_t l = strcspn(p, "\n");
        /* within this line only: a search of the rest of the text for every line was
         * quadratic (0.2 s for a 6,000-line kernel's SASS) */
        if (line_has(p, l, "Function :")) { /* a new function: check the previous one */
            check_function(v, n, &found, where, len);
            n = 0;
        } else if (n == cap) {
            struct insn *w = realloc(v, (cap *= 2) * sizeof *v);
            if (!w)
                break;
            v = w;
            n += parse_insn(p, l, &v[n]);
        } else {
            n += parse_insn(p, l, &v[n]);
        }
        p += l + (p[l] == '\n');
    }
    if (v)
        check_function(v, n, &found, where, len);
    free(v);
    return found;
}

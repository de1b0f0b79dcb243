/* src/build/nvcc.c — nvcc driver, build cache, ptxas and SASS checks (see nvcc.h). */
#include "nvcc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/file.h>
#include <unistd.h>

#include "../../kernels/abi.h"
#include "util/atomicio.h"
#include "util/hash.h"
#include "util/jsonget.h"
#include "util/log.h"
#include "util/spawn.h"
#include "util/strbuf.h"
#include "util/regfile.h"

/* Bump when the cache record or the flags' meaning changes: old entries stop matching. */
#define BUILD_CACHE_SCHEMA "croq-build-cache-4" /* 2: wgmma_serialized, 3: meta_hazard, 4: module id */
#define BUILD_MAX_ARGS 64
#define MODULE_ID_HEADER "croq_module_id.h" /* written into the private directory (kernels/module_id.h) */

static const char *const base_flags[] = {
    "-cubin", "-gencode=arch=compute_90a,code=sm_90a", "-O3", "-std=c++17", "-lineinfo",
    "-Xptxas", "-v,--warn-on-local-memory-usage,--warn-on-spills", "-include", MODULE_ID_HEADER, NULL,
};

/* ---- tools -------------------------------------------------------------------- */

static const char *nvcc_path(const struct build_opts *o)
{
    if (o && o->nvcc)
        return o->nvcc;
    const char *e = getenv("CROQ_NVCC");
    if (e && *e)
        return e;
#ifdef CROQ_NVCC_DEFAULT
    if (access(CROQ_NVCC_DEFAULT, X_OK) == 0)
        return CROQ_NVCC_DEFAULT;
#endif
    return "nvcc";
}

static bool executable(const char *p) { return access(p, X_OK) == 0; }

static bool in_path(const char *name, char *out, size_t outlen)
{
    const char *path = getenv("PATH");
    while (path && *path) {
        const char *colon = strchr(path, ':');
        size_t n = colon ? (size_t)(colon - path) : strlen(path);
        if (n) {
            snprintf(out, outlen, "%.*s/%s", (int)n, path, name);
            if (executable(out))
                return true;
        }
        path = colon ? colon + 1 : NULL;
    }
    return false;
}

/* The pip copy under .deps, found from where our binary lives: build/bin/croqtuner and
 * build/test_* both sit one or two levels below the source tree. */
static bool deps_cuobjdump(char *out, size_t outlen)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return false;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return false;
    *slash = '\0';
    const char *ups[] = {"..", "../.."};
    for (int i = 0; i < 2; i++) {
        int n = snprintf(out, outlen, "%s/%s/.deps/pip/nvidia/cu13/bin/cuobjdump", exe, ups[i]);
        if (n > 0 && (size_t)n < outlen && executable(out))
            return true;
    }
    return false;
}

static bool find_cuobjdump(char *out, size_t outlen)
{
    const char *e = getenv("CROQ_CUOBJDUMP");
    if (e && *e) {
        snprintf(out, outlen, "%s", e);
        return true; /* explicit: used even if broken, so the error names it */
    }
    if (in_path("cuobjdump", out, outlen))
        return true;
#ifdef CROQ_CUOBJDUMP_DEFAULT
    if (executable(CROQ_CUOBJDUMP_DEFAULT)) {
        snprintf(out, outlen, "%s", CROQ_CUOBJDUMP_DEFAULT);
        return true;
    }
#endif
    return deps_cuobjdump(out, outlen);
}

/* `nvcc --version` text, remembered per nvcc path (it costs a process per compile). */
static int nvcc_version(const char *nvcc, char *err, size_t errlen, const char **text)
{
    static char *cached_path, *cached_text;
    if (cached_path && !strcmp(cached_path, nvcc)) {
        *text = cached_text;
        return 0;
    }
    const char *argv[] = {nvcc, "--version", NULL};
    struct spawn_opts so = {.argv = argv, .timeout_s = 60};
    struct spawn_result sr;
    if (spawn_run(&so, &sr)) {
        snprintf(err, errlen, "cannot run '%s': %s", nvcc, strerror(errno));
        return -1;
    }
    if (sr.exec_failed || sr.exit_code != 0) {
        char d[128];
        spawn_describe(&sr, d, sizeof d);
        snprintf(err, errlen, "cannot run nvcc '%s' (%s); set CROQ_NVCC to the CUDA compiler", nvcc, d);
        spawn_result_release(&sr);
        return -1;
    }
    free(cached_path);
    free(cached_text);
    cached_path = xstrdup(nvcc);
    cached_text = sr.out;
    sr.out = NULL;
    spawn_result_release(&sr);
    *text = cached_text;
    return 0;
}

/* ---- ptxas report -------------------------------------------------------------- */

struct ptxas_fn {
    char name[128];
    int registers, spill_st, spill_ld, stack, smem, barriers;
};

static int int_before(const char *line, const char *suffix)
{
    const char *p = strstr(line, suffix);
    if (!p)
        return -1;
    while (p > line && p[-1] == ' ')
        p--;
    while (p > line && p[-1] >= '0' && p[-1] <= '9')
        p--;
    return (*p >= '0' && *p <= '9') ? atoi(p) : -1;
}

/* The quoted name after marker ("... 'name' ..."), or the word after it. */
static void name_after(const char *line, const char *marker, char *out, size_t outlen)
{
    const char *p = strstr(line, marker) + strlen(marker);
    while (*p == ' ' || *p == '\'')
        p++;
    size_t n = strcspn(p, "' \n");
    snprintf(out, outlen, "%.*s", (int)(n < outlen ? n : outlen - 1), p);
}

static struct ptxas_fn *fn_get(struct ptxas_fn *fns, int *n, int max, const char *name)
{
    for (int i = 0; i < *n; i++)
        if (!strcmp(fns[i].name, name))
            return &fns[i];
    if (*n == max)
        return NULL;
    struct ptxas_fn *f = &fns[(*n)++];
    *f = (struct ptxas_fn){.registers = -1, .spill_st = -1, .spill_ld = -1, .stack = -1, .smem = -1, .barriers = -1};
    snprintf(f->name, sizeof f->name, "%s", name);
    return f;
}

static void ptxas_line(const char *line, struct ptxas_fn *fns, int *n, int max, char *entry_fn,
                       char *props_fn, struct build_ptxas *p)
{
    struct ptxas_fn *f;
    if (strstr(line, "Compiling entry function")) {
        name_after(line, "Compiling entry function", entry_fn, 128);
        fn_get(fns, n, max, entry_fn);
    } else if (strstr(line, "Function properties for")) {
        name_after(line, "Function properties for", props_fn, 128);
    } else if (strstr(line, "bytes stack frame") && *props_fn && (f = fn_get(fns, n, max, props_fn))) {
        f->stack = int_before(line, "bytes stack frame");
        f->spill_st = int_before(line, "bytes spill stores");
        f->spill_ld = int_before(line, "bytes spill loads");
        props_fn[0] = '\0';
    } else if (strstr(line, "Used ") && strstr(line, " registers") && *entry_fn &&
               (f = fn_get(fns, n, max, entry_fn))) {
        f->registers = int_before(line, "registers");
        f->barriers = int_before(line, "barriers");
        f->smem = int_before(line, "bytes smem");
    } else if (strstr(line, "Local memory used for function") ||
               strstr(line, "Registers are spilled to local memory")) {
        p->local_memory_warning = true;
    } else if (strstr(line, "(C7515)") || strstr(line, "wgmma.mma_async instructions are serialized")) {
        p->wgmma_serialized = true;
    }
}

void build_parse_ptxas(const char *log, const char *entry, struct build_ptxas *p)
{
    struct ptxas_fn fns[32];
    int n = 0;
    char entry_fn[128] = "", props_fn[128] = "", line[1024];
    *p = (struct build_ptxas){.registers = -1, .spill_store_bytes = -1, .spill_load_bytes = -1,
                              .stack_frame_bytes = -1, .smem_bytes = -1, .barriers = -1};
    for (const char *s = log; s && *s;) {
        size_t len = strcspn(s, "\n");
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), s);
        ptxas_line(line, fns, &n, 32, entry_fn, props_fn, p);
        s += len + (s[len] == '\n');
    }
    const struct ptxas_fn *pick = NULL;
    for (int i = 0; i < n; i++) {
        if (fns[i].spill_st > 0 || fns[i].spill_ld > 0 || fns[i].stack > 0)
            p->spills = true;
        if (!pick && entry && !strcmp(fns[i].name, entry))
            pick = &fns[i];
    }
    if (!pick && n && fns[0].registers >= 0)
        pick = &fns[0]; /* first entry function: ptxas reports entries in "Compiling" order */
    p->spills |= p->local_memory_warning;
    if (!pick)
        return;
    p->parsed = true;
    snprintf(p->function, sizeof p->function, "%s", pick->name);
    p->registers = pick->registers;
    p->spill_store_bytes = pick->spill_st;
    p->spill_load_bytes = pick->spill_ld;
    p->stack_frame_bytes = pick->stack;
    p->smem_bytes = pick->smem < 0 && pick->registers >= 0 ? 0 : pick->smem; /* ptxas omits 0 smem */
    p->barriers = pick->barriers;
}

/* ---- SASS -------------------------------------------------------------------- */

/* nvcc and cuobjdump hand their file arguments to a shell internally (nvcc's driver
 * passes even the absolute source path to cicc through `sh -c`; cuobjdump calls nvdisasm
 * the same way), so no path the user chose may reach them: the tool runs with cwd in a
 * fresh /tmp/croq-build-XXXXXX holding `name` with the given bytes, on bare names.
 * /tmp is fixed on purpose ($TMPDIR is the user's text too). */
static void work_dir_remove(const char *work);

/* Another file of the work directory (scratch: removed once the tool ran). */
static int work_file_add(const char *work, const char *name, const void *data, size_t len, char *err, size_t errlen)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", work, name);
    if (atomic_write_volatile(path, data, len)) {
        snprintf(err, errlen, "cannot write '%.200s': %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

static int work_dir_make(const char *name, const char *data, size_t len, char work[PATH_MAX], char *err,
                         size_t errlen)
{
    snprintf(work, PATH_MAX, "/tmp/croq-build-XXXXXX");
    if (!mkdtemp(work)) {
        snprintf(err, errlen, "cannot create a build directory in /tmp: %s", strerror(errno));
        return -1;
    }
    if (work_file_add(work, name, data, len, err, errlen)) {
        rmdir(work);
        return -1;
    }
    return 0;
}

static void work_dir_remove(const char *work)
{
    static const char *const names[] = {"kernel.cu", "kernel.cubin", MODULE_ID_HEADER};
    char path[PATH_MAX + 32];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", work, names[i]);
        unlink(path);
    }
    rmdir(work);
}

/* The mnemonic of a SASS line (an address comment, an optional predicate, then e.g.
 * "HGMMA.SP.64x128x32.F32 R24, ..."), or false when the line holds no instruction. */
static bool sass_mnemonic(const char *line, size_t len, char *out, size_t outlen)
{
    const char *end = line + len, *p = line;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (end - p < 4 || p[0] != '/' || p[1] != '*')
        return false;
    const char *close = strstr(p + 2, "*/");
    if (!close || close >= end)
        return false;
    p = close + 2;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p < end && *p == '@') { /* predicate guard */
        while (p < end && *p != ' ')
            p++;
        while (p < end && *p == ' ')
            p++;
    }
    size_t n = 0;
    while (p + n < end && p[n] != ' ' && p[n] != ';' && p[n] != '\t')
        n++;
    if (!n || n >= outlen)
        return false;
    memcpy(out, p, n);
    out[n] = '\0';
    return true;
}

static bool has_component(const char *mn, const char *comp)
{
    size_t cl = strlen(comp);
    for (const char *p = strchr(mn, '.'); p; p = strchr(p + 1, '.'))
        if (!strncmp(p + 1, comp, cl) && (p[1 + cl] == '.' || !p[1 + cl]))
            return true;
    return false;
}

static void add_distinct(char *list, size_t cap, const char *word)
{
    size_t wl = strlen(word), ll = strlen(list);
    for (const char *p = list; (p = strstr(p, word)); p += wl)
        if ((p == list || p[-1] == ' ') && (p[wl] == ' ' || !p[wl]))
            return;
    if (ll + wl + 2 <= cap)
        snprintf(list + ll, cap - ll, "%s%s", ll ? " " : "", word);
}

static void sass_instruction(const char *mn, struct build_sass *s)
{
    size_t head = strcspn(mn, ".");
    if (head >= 4 && !strncmp(mn + head - 4, "GMMA", 4)) {
        s->has_gmma = true;
        s->gmma_count++;
        if (has_component(mn, "SP")) {
            s->has_sparse_gmma = true;
            s->sparse_gmma_count++;
        }
        add_distinct(s->mnemonics, sizeof s->mnemonics, mn);
    } else if (head == 4 && !strncmp(mn, "HMMA", 4)) {
        s->has_hmma = true;
    }
}

void build_scan_sass(const char *sass, struct build_sass *s)
{
    *s = (struct build_sass){.checked = true};
    char mn[128];
    for (const char *p = sass; p && *p;) {
        size_t len = strcspn(p, "\n");
        if (sass_mnemonic(p, len, mn, sizeof mn))
            sass_instruction(mn, s);
        p += len + (p[len] == '\n');
    }
    s->meta_hazard = build_sass_meta_hazard(sass, s->hazard, sizeof s->hazard);
}

/* The SASS of exactly these cubin bytes (the build's private copy: a shared output path
 * may be rewritten by another build meanwhile). */
static void sass_check(const void *bytes, size_t len, struct build_sass *s)
{
    char tool[PATH_MAX], work[PATH_MAX];
    *s = (struct build_sass){0};
    if (!find_cuobjdump(tool, sizeof tool)) {
        snprintf(s->note, sizeof s->note,
                 "cuobjdump not found (set CROQ_CUOBJDUMP or run scripts/setup-deps.sh)");
        return;
    }
    if (work_dir_make("kernel.cubin", bytes, len, work, s->note, sizeof s->note))
        return;
    const char *argv[] = {tool, "-sass", "kernel.cubin", NULL};
    struct spawn_opts so = {.argv = argv, .cwd = work, .timeout_s = BUILD_SASS_TIMEOUT_S,
                            .out_cap = (size_t)256 << 20};
    struct spawn_result sr;
    int rc = spawn_run(&so, &sr);
    work_dir_remove(work);
    if (rc) {
        snprintf(s->note, sizeof s->note, "cannot run '%.160s': %s", tool, strerror(errno));
        return;
    }
    if (sr.exec_failed || sr.exit_code != 0 || sr.out_truncated) {
        char d[128];
        spawn_describe(&sr, d, sizeof d);
        snprintf(s->note, sizeof s->note, "'%.80s -sass' failed (%s): %.100s", tool,
                 sr.out_truncated ? "output too large" : d, sr.err);
        char *nl = strchr(s->note, '\n');
        if (nl)
            *nl = '\0';
    } else {
        build_scan_sass(sr.out, s);
    }
    spawn_result_release(&sr);
}

/* ---- errors ------------------------------------------------------------------ */

/* The compiler's complaint, short enough for a log line: its error lines first. */
static void error_excerpt(const char *log, char *out, size_t outlen)
{
    struct strbuf sb = STRBUF_INIT;
    const size_t budget = outlen > 200 ? outlen - 100 : outlen / 2;
    int skipped = 0;
    for (const char *p = log; *p;) {
        size_t len = strcspn(p, "\n");
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
        if (strstr(line, "error") || strstr(line, "fatal")) {
            if (sb.len + strlen(line) + 2 < budget)
                strbuf_addf(&sb, "%s%s", sb.len ? "\n" : "", line);
            else
                skipped++;
        }
        p += len + (p[len] == '\n');
    }
    if (!sb.len) /* no recognisable error line: the head of the output */
        strbuf_add(&sb, log, strlen(log) < budget ? strlen(log) : budget);
    if (skipped)
        strbuf_addf(&sb, "\n(%d more error lines in the log)", skipped);
    snprintf(out, outlen, "%s", strbuf_str(&sb));
    strbuf_release(&sb);
}

/* ---- cache -------------------------------------------------------------------- */

static bool cache_dir_for(const struct build_opts *o, char *out, size_t outlen)
{
    const char *d = o ? o->cache_dir : NULL, *e;
    if (d)
        snprintf(out, outlen, "%s", d);
    else if ((e = getenv("CROQ_CACHE_DIR")) && *e)
        snprintf(out, outlen, "%s", e);
    else if ((e = getenv("XDG_CACHE_HOME")) && *e)
        snprintf(out, outlen, "%s/croqtuner", e);
    else if ((e = getenv("HOME")) && *e)
        snprintf(out, outlen, "%s/.cache/croqtuner", e);
    else
        out[0] = '\0';
    return out[0] != '\0';
}

/* The build record is our own file (cache_store): a member absent or of the wrong type
 * (a record of an older croqtuner) keeps the field's value, its problem is not an error. */
static void record_to_result(json_t *rec, struct build_result *r)
{
    char ignored[160];
    struct jget g;
    long long x;
    jget_init(&g, "build record: ", ignored, sizeof ignored);
    json_t *p = json_object_get(rec, "ptxas"), *s = json_object_get(rec, "sass");
#define INT_FIELD(obj, key, dst) do { if (jget_int(&g, obj, "", key, false, &x)) (dst) = (int)x; } while (0)
    r->ptxas.parsed = r->ptxas.local_memory_warning = r->ptxas.spills = r->ptxas.wgmma_serialized = false;
    r->sass.checked = r->sass.has_gmma = r->sass.has_sparse_gmma = r->sass.has_hmma = r->sass.meta_hazard = false;
    jget_bool(&g, p, "ptxas", "parsed", false, &r->ptxas.parsed);
    jget_text(&g, p, "ptxas", "function", false, r->ptxas.function, sizeof r->ptxas.function);
    INT_FIELD(p, "registers", r->ptxas.registers);
    INT_FIELD(p, "spill_store_bytes", r->ptxas.spill_store_bytes);
    INT_FIELD(p, "spill_load_bytes", r->ptxas.spill_load_bytes);
    INT_FIELD(p, "stack_frame_bytes", r->ptxas.stack_frame_bytes);
    INT_FIELD(p, "smem_bytes", r->ptxas.smem_bytes);
    INT_FIELD(p, "barriers", r->ptxas.barriers);
    jget_bool(&g, p, "ptxas", "local_memory_warning", false, &r->ptxas.local_memory_warning);
    jget_bool(&g, p, "ptxas", "spills", false, &r->ptxas.spills);
    jget_bool(&g, p, "ptxas", "wgmma_serialized", false, &r->ptxas.wgmma_serialized);
    jget_bool(&g, s, "sass", "checked", false, &r->sass.checked);
    jget_text(&g, s, "sass", "note", false, r->sass.note, sizeof r->sass.note);
    jget_bool(&g, s, "sass", "has_gmma", false, &r->sass.has_gmma);
    jget_bool(&g, s, "sass", "has_sparse_gmma", false, &r->sass.has_sparse_gmma);
    INT_FIELD(s, "gmma_count", r->sass.gmma_count);
    INT_FIELD(s, "sparse_gmma_count", r->sass.sparse_gmma_count);
    jget_bool(&g, s, "sass", "has_hmma", false, &r->sass.has_hmma);
    jget_bool(&g, s, "sass", "meta_hazard", false, &r->sass.meta_hazard);
    jget_text(&g, s, "sass", "hazard", false, r->sass.hazard, sizeof r->sass.hazard);
#undef INT_FIELD
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(s, "mnemonics"), i, m)
        if (json_is_string(m))
            add_distinct(r->sass.mnemonics, sizeof r->sass.mnemonics, json_string_value(m));
    const char *log = json_string_value(json_object_get(rec, "log"));
    free(r->log);
    r->log = xstrdup(log ? log : "");
}

/* ---- module identity (kernels/module_id.h) ------------------------------------ */

int build_module_id_scan(const void *bytes, size_t len, char out[17])
{
    static const char prefix[] = CROQ_MODULE_ID_PREFIX;
    const size_t plen = sizeof prefix - 1;
    const unsigned char *b = bytes, *end = b + len;
    int found = 0;
    bool well_formed = true;
    out[0] = '\0';
    for (const unsigned char *p = b; b && (size_t)(end - p) >= plen;) {
        const unsigned char *hit = memchr(p, prefix[0], (size_t)(end - p));
        if (!hit || (size_t)(end - hit) < plen)
            break;
        if (memcmp(hit, prefix, plen)) {
            p = hit + 1;
            continue;
        }
        const unsigned char *h = hit + plen;
        size_t n = 0;
        while (h + n < end && ((h[n] >= '0' && h[n] <= '9') || (h[n] >= 'a' && h[n] <= 'f')))
            n++;
        if (n != CROQ_MODULE_ID_HEX)
            well_formed = false;
        else if (!found) {
            memcpy(out, h, CROQ_MODULE_ID_HEX);
            out[CROQ_MODULE_ID_HEX] = '\0';
        }
        found++;
        p = h;
    }
    if (found == 1 && well_formed)
        return 1;
    out[0] = '\0';
    return found ? -1 : 0;
}

/* What a cubin's bytes say about its identity, for messages: "id X", "no module id",
 * "a malformed or repeated module id". */
static const char *id_words(int scan, const char *id, char *buf, size_t len)
{
    if (scan == 1)
        snprintf(buf, len, "module id %s", id);
    else
        snprintf(buf, len, "%s", scan ? "a malformed or repeated module id" : "no module id");
    return buf;
}

/* The header nvcc -include's: the identity as a device constant (kernels/module_id.h). The
 * prefix occurs in it once, so a stand-in compiler that copies the header into its
 * "cubin" carries exactly one marker too. */
static void module_id_header(const char *key, char *out, size_t len)
{
    snprintf(out, len,
             "/* written by croqtuner's build (src/build/nvcc.c): the identity of this module, kernels/module_id.h */\n"
             "extern \"C\" __device__ const char %s[%d] = \"%s%s\";\n",
             CROQ_MODULE_ID_SYMBOL, CROQ_MODULE_ID_BYTES, CROQ_MODULE_ID_PREFIX, key);
}

/* ---- cache entries ------------------------------------------------------------ */

static void cache_paths(const char *dir, const char *key, char cubin[PATH_MAX], char rec[PATH_MAX])
{
    snprintf(cubin, PATH_MAX, "%.4000s/%s.cubin", dir, key);
    snprintf(rec, PATH_MAX, "%.4000s/%s.json", dir, key);
}

/* Record first, cubin last: a cubin without its record is a miss, never a hit. */
static void cache_remove(const char *dir, const char *key)
{
    char cubin[PATH_MAX], rec[PATH_MAX];
    cache_paths(dir, key, cubin, rec);
    if ((unlink(rec) && errno != ENOENT) || (unlink(cubin) && errno != ENOENT))
        log_warn("cannot remove the build cache entry %s in '%s': %s", key, dir, strerror(errno));
}

/* A hit: the cached cubin's bytes (malloc'd, *len) and the record restored into r. A
 * record made without SASS is not a hit when SASS is wanted now and can be checked. An
 * entry whose cubin does not carry exactly its own key (another source's module filed
 * under it) is purged, with a warning naming both ids: a miss. */
static char *cache_lookup(const char *dir, const struct build_opts *o, struct build_result *r, size_t *len)
{
    char cubin[PATH_MAX], rec_path[PATH_MAX], err[300], id[17], words[64];
    cache_paths(dir, r->key, cubin, rec_path);
    json_t *rec = regfile_load_json(rec_path, 0, err, sizeof err); /* unreadable: a miss */
    bool hit = rec && json_is_true(json_object_get(rec, "ok"));
    if (hit && !(o && o->no_sass) && !json_is_true(json_object_get(json_object_get(rec, "sass"), "checked")))
        hit = false;
    char *bytes = hit ? read_file(cubin, len) : NULL;
    if (bytes && !*len) {
        free(bytes);
        bytes = NULL;
    }
    if (bytes) {
        int scan = build_module_id_scan(bytes, *len, id);
        if (scan != 1 || strcmp(id, r->key)) {
            log_warn("build cache entry %s in '%s' holds a cubin with %s, not its own: another build's module "
                     "was filed under this key; the entry is removed and the source compiled again",
                     r->key, dir, id_words(scan, id, words, sizeof words));
            cache_remove(dir, r->key);
            free(bytes);
            bytes = NULL;
        }
    }
    if (bytes) {
        record_to_result(rec, r);
        r->cache_hit = true;
    }
    json_decref(rec);
    return bytes;
}

/* Best effort: a cache that cannot be written only costs time later. Cubin first, record
 * last, so a record always has its cubin. bytes are the build's own (private) cubin. */
static void cache_store(const char *dir, const struct build_result *r, const void *bytes, size_t len)
{
    char cubin[PATH_MAX], rec_path[PATH_MAX];
    cache_paths(dir, r->key, cubin, rec_path);
    json_t *rec = build_result_json(r, true);
    char *text = json_dumps(rec, JSON_INDENT(1) | JSON_SORT_KEYS);
    if (mkdir_p(dir) || atomic_write(cubin, bytes, len) || !text || atomic_write_str(rec_path, text))
        log_warn("cannot write the build cache in '%s': %s", dir, strerror(errno));
    free(text);
    json_decref(rec);
}

/* ---- compile ------------------------------------------------------------------- */

struct argv_list {
    const char *v[BUILD_MAX_ARGS];
    char *owned[BUILD_MAX_ARGS];
    int n, nowned;
};

static int args_build(struct argv_list *a, const char *nvcc, const struct build_opts *o, char *err, size_t errlen)
{
    a->n = a->nowned = 0;
    a->v[a->n++] = nvcc;
    for (int i = 0; base_flags[i]; i++)
        a->v[a->n++] = base_flags[i];
    for (const char *const *d = o ? o->defines : NULL; d && *d; d++) {
        if (a->n + 4 >= BUILD_MAX_ARGS) {
            snprintf(err, errlen, "too many -D definitions (at most %d)", BUILD_MAX_ARGS - 16);
            return -1;
        }
        if (!**d || **d == '-' || **d == '=') {
            snprintf(err, errlen, "bad definition '%s' (expected NAME or NAME=VALUE)", *d);
            return -1;
        }
        size_t len = strlen(*d) + 3;
        char *s = xmalloc(len);
        snprintf(s, len, "-D%s", *d);
        a->owned[a->nowned++] = s;
        a->v[a->n++] = s;
    }
    a->v[a->n] = NULL;
    return 0;
}

static void args_release(struct argv_list *a)
{
    for (int i = 0; i < a->nowned; i++)
        free(a->owned[i]);
    a->nowned = 0;
}

/* The key covers every byte of the source (the bytes nvcc is given), not its text up to
 * a NUL. */
static void compute_key(const char *version, const struct argv_list *a, const char *src, size_t len, char out[17])
{
    uint64_t h = hash_fnv1a64_str(HASH_FNV1A64_INIT, BUILD_CACHE_SCHEMA);
    h = hash_fnv1a64_str(h, version);
    for (int i = 1; i < a->n; i++) /* argv[0] is a path; the version text stands for it */
        h = hash_fnv1a64_str(h, a->v[i]);
    h = hash_fnv1a64(h, src, len);
    hash_hex(h, out);
}

/* Run nvcc in work_dir (cwd) on kernel.cu -> kernel.cubin: bare names only, see
 * build_compile in nvcc.h. */
static int run_nvcc(struct argv_list *a, const char *src_path, const char *work_dir, const struct build_opts *o,
                    struct build_result *r)
{
    int base = a->n;
    a->v[a->n++] = "-o";
    a->v[a->n++] = "kernel.cubin";
    a->v[a->n++] = "kernel.cu";
    a->v[a->n] = NULL;
    double limit = o && o->timeout_s > 0 ? o->timeout_s : BUILD_DEFAULT_TIMEOUT_S;
    struct spawn_opts so = {.argv = a->v, .cwd = work_dir, .timeout_s = limit, .out_cap = 4 << 20,
                            .err_cap = 4 << 20};
    struct spawn_result sr;
    int rc = spawn_run(&so, &sr);
    a->n = base;
    if (rc) {
        snprintf(r->error, sizeof r->error, "cannot run '%s': %s", a->v[0], strerror(errno));
        r->toolchain_failed = true;
        return -1;
    }
    r->compile_s = sr.wall_s;
    struct strbuf log = STRBUF_INIT;
    strbuf_adds(&log, sr.out);
    strbuf_adds(&log, sr.err);
    free(r->log);
    r->log = strbuf_detach(&log);
    if (sr.exec_failed || sr.timed_out || sr.term_signal || sr.exit_code != 0) {
        char d[128], excerpt[BUILD_ERROR_MAX - 256];
        spawn_describe(&sr, d, sizeof d);
        error_excerpt(r->log, excerpt, sizeof excerpt);
        snprintf(r->error, sizeof r->error, "nvcc failed on '%s' (%s)%s%s", src_path, d, *excerpt ? ":\n" : "",
                 excerpt);
        r->toolchain_failed = sr.exec_failed || sr.timed_out || sr.term_signal;
        rc = -1;
    }
    spawn_result_release(&sr);
    return rc;
}

/* out_dir/<basename without .cu>.cubin. */
static int output_path(const char *src_path, const struct build_opts *o, char *cubin, char *err, size_t errlen)
{
    const char *slash = strrchr(src_path, '/');
    const char *base = slash ? slash + 1 : src_path;
    char dir[PATH_MAX];
    if (o && o->out_dir)
        snprintf(dir, sizeof dir, "%s", o->out_dir);
    else if (slash)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash == src_path ? 1 : slash - src_path), src_path);
    else
        snprintf(dir, sizeof dir, ".");
    size_t bl = strlen(base);
    if (bl > 3 && !strcmp(base + bl - 3, ".cu"))
        bl -= 3;
    if (!bl || snprintf(cubin, PATH_MAX, "%s/%.*s.cubin", dir, (int)bl, base) >= PATH_MAX) {
        snprintf(err, errlen, "bad output path for '%s'", src_path);
        return -1;
    }
    return 0;
}

static void result_init(struct build_result *r)
{
    memset(r, 0, sizeof *r);
    r->ptxas = (struct build_ptxas){.registers = -1, .spill_store_bytes = -1, .spill_load_bytes = -1,
                                    .stack_frame_bytes = -1, .smem_bytes = -1, .barriers = -1};
}

/* Compile in a private directory (the source as kernel.cu, the identity header beside it)
 * and run the static checks on the private cubin, whose bytes come back (malloc'd, *len):
 * nothing here reads the shared output path, which another build may write meanwhile. A
 * cubin that does not carry exactly this build's key (a compiler that ignored -include)
 * fails the build as the toolchain's fault: it must never reach the cache. */
static char *compile_fresh(struct argv_list *a, const char *src_path, const char *src, size_t src_len,
                           const struct build_opts *o, struct build_result *r, size_t *len)
{
    char work[PATH_MAX], built[PATH_MAX + 16], header[512], id[17], words[64];
    module_id_header(r->key, header, sizeof header);
    if (work_dir_make("kernel.cu", src, src_len, work, r->error, sizeof r->error))
        return NULL;
    if (work_file_add(work, MODULE_ID_HEADER, header, strlen(header), r->error, sizeof r->error)) {
        work_dir_remove(work);
        return NULL;
    }
    snprintf(built, sizeof built, "%s/kernel.cubin", work);
    char *bytes = NULL;
    if (!run_nvcc(a, src_path, work, o, r) && !(bytes = read_file(built, len)))
        snprintf(r->error, sizeof r->error, "nvcc wrote no readable cubin for '%.1024s': %s", src_path,
                 strerror(errno));
    work_dir_remove(work);
    if (!bytes)
        return NULL;
    int scan = build_module_id_scan(bytes, *len, id);
    if (scan != 1 || strcmp(id, r->key)) {
        snprintf(r->error, sizeof r->error, "the cubin nvcc '%.512s' made of '%.512s' carries %s, not %s (did it "
                 "ignore '-include %s'?): refused, nothing cached", a->v[0], src_path,
                 id_words(scan, id, words, sizeof words), r->key, MODULE_ID_HEADER);
        r->toolchain_failed = true;
        free(bytes);
        return NULL;
    }
    build_parse_ptxas(r->log, CROQ_KERNEL_ENTRY, &r->ptxas);
    if (o && o->no_sass)
        snprintf(r->sass.note, sizeof r->sass.note, "not checked (disabled)");
    else
        sass_check(bytes, *len, &r->sass);
    return bytes;
}

/* One byte to the caller's notify_fd (build_opts), once: it may go on. Once only, since the
 * caller closes its end when told (a second write could raise SIGPIPE). */
static void notify(const struct build_opts *o, bool *told)
{
    if (o && o->notify_fd > 0 && !*told)
        (void)!write(o->notify_fd, "1", 1);
    *told = true;
}

/* An exclusive flock on <cache>/<key>.lock, held while the key is looked up and built, so
 * that builds of the same source in several processes (the engine's compile-ahead,
 * src/engine/speculate.c) compile it once: the second waits and finds the cache entry.
 * The notify_fd caller is told as soon as the key is ours or another build's: either way a
 * later build of the source waits for a build already under way. (Told only once the lock
 * was ours, the compile-ahead of a source still compiling from the iteration before kept
 * the engine waiting for that compile, and the GPU idle: 0.6 s per iteration of a small
 * shape, bench/overhead.sh.) -1 when the lock cannot be taken (then builds just do not
 * coordinate). */
static int key_lock(const char *cache, const char *key, const struct build_opts *o, bool *told)
{
    char path[PATH_MAX];
    if (mkdir_p(cache) || snprintf(path, sizeof path, "%s/%s.lock", cache, key) >= (int)sizeof path)
        return -1;
    int fd = regfile_open(path, O_RDWR | O_CREAT, REGFILE_NOFOLLOW, 0);
    if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0)
        return fd;
    notify(o, told); /* held by another build (or no lock at all) */
    if (fd >= 0 && flock(fd, LOCK_EX)) {
        close(fd);
        fd = -1;
    }
    return fd;
}

int build_compile(const char *src_path, const struct build_opts *o, struct build_result *r)
{
    char cache[PATH_MAX];
    const char *version;
    struct argv_list a = {.n = 0};
    size_t src_len = 0, len = 0;
    result_init(r);
    r->log = xstrdup("");
    char *src = read_file(src_path, &src_len), *cubin = NULL;
    if (!src) {
        snprintf(r->error, sizeof r->error, "cannot read '%s': %s", src_path, strerror(errno));
        return -1;
    }
    hash_hex(hash_fnv1a64(HASH_FNV1A64_INIT, src, src_len), r->source_hash);
    const char *nvcc = nvcc_path(o);
    int rc = -1;
    if (output_path(src_path, o, r->cubin_path, r->error, sizeof r->error))
        goto out;
    if (nvcc_version(nvcc, r->error, sizeof r->error, &version)) {
        r->toolchain_failed = true;
        goto out;
    }
    if (args_build(&a, nvcc, o, r->error, sizeof r->error))
        goto out;
    compute_key(version, &a, src, src_len, r->key);
    bool use_cache = cache_dir_for(o, cache, sizeof cache);
    bool told = false;
    int lock = use_cache ? key_lock(cache, r->key, o, &told) : -1;
    notify(o, &told); /* the caller may go on: this build holds its key */
    if (use_cache)
        cubin = cache_lookup(cache, o, r, &len);
    if (!cubin && (cubin = compile_fresh(&a, src_path, src, src_len, o, r, &len)) && use_cache) {
        r->ok = true; /* the record says so */
        snprintf(r->module_id, sizeof r->module_id, "%s", r->key);
        cache_store(cache, r, cubin, len);
    }
    /* the shared output path last, from the bytes checked (a build output, like any
     * compiler's: the cache is the durable copy) */
    if (cubin && atomic_write_volatile(r->cubin_path, cubin, len))
        snprintf(r->error, sizeof r->error, "cannot write '%.1024s': %s", r->cubin_path, strerror(errno));
    else if (cubin)
        rc = 0;
    if (lock >= 0)
        close(lock); /* releases the flock */
out:
    args_release(&a);
    free(src);
    free(cubin);
    r->ok = rc == 0;
    snprintf(r->module_id, sizeof r->module_id, "%s", r->ok ? r->key : "");
    return rc;
}

int build_cache_purge(const struct build_opts *o, const char *key)
{
    char cache[PATH_MAX];
    bool told = true; /* nobody to notify */
    if (!cache_dir_for(o, cache, sizeof cache))
        return 0;
    int lock = key_lock(cache, key, NULL, &told); /* not while another build fills the entry */
    cache_remove(cache, key);
    if (lock >= 0)
        close(lock);
    return 0;
}

void build_result_release(struct build_result *r)
{
    free(r->log);
    r->log = NULL;
}

/* ---- record -------------------------------------------------------------------- */

/* A JSON string of text that may hold bytes that are not UTF-8 (compiler output in
 * some locale): such bytes become '?', since jansson refuses invalid UTF-8. */
static json_t *json_text(const char *s)
{
    json_t *j = json_string(s);
    if (j)
        return j;
    char *copy = xstrdup(s);
    for (char *p = copy; *p; p++)
        if ((unsigned char)*p >= 0x80)
            *p = '?';
    j = json_string(copy);
    free(copy);
    return j;
}

static json_t *int_or_null(int v) { return v < 0 ? json_null() : json_integer(v); }

static json_t *ptxas_json(const struct build_ptxas *p)
{
    return json_pack("{s:b, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:b, s:b}", "parsed", p->parsed, "function",
                     p->function, "registers", int_or_null(p->registers), "spill_store_bytes",
                     int_or_null(p->spill_store_bytes), "spill_load_bytes", int_or_null(p->spill_load_bytes),
                     "stack_frame_bytes", int_or_null(p->stack_frame_bytes), "smem_bytes",
                     int_or_null(p->smem_bytes), "barriers", int_or_null(p->barriers), "local_memory_warning",
                     p->local_memory_warning, "spills", p->spills, "wgmma_serialized", p->wgmma_serialized);
}

static json_t *sass_json(const struct build_sass *s)
{
    json_t *mn = json_array();
    char buf[BUILD_MNEMONICS_MAX];
    snprintf(buf, sizeof buf, "%s", s->mnemonics);
    for (char *save = NULL, *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save))
        json_array_append_new(mn, json_string(t));
    return json_pack("{s:b, s:o, s:b, s:b, s:i, s:i, s:b, s:o, s:s, s:b, s:o}", "checked", s->checked, "note",
                     json_text(s->note), "has_gmma", s->has_gmma, "has_sparse_gmma", s->has_sparse_gmma,
                     "gmma_count", s->gmma_count, "sparse_gmma_count", s->sparse_gmma_count, "has_hmma",
                     s->has_hmma, "mnemonics", mn, "sparse_marker",
                     "*GMMA mnemonic with an SP dot-component (HGMMA.SP.*, QGMMA.SP.*)", "meta_hazard",
                     s->meta_hazard, "hazard", json_text(s->hazard));
}

json_t *build_result_json(const struct build_result *r, bool with_log)
{
    json_t *j = json_pack("{s:i, s:b, s:b, s:s, s:s, s:s, s:s, s:f, s:o, s:o}", "schema", 1, "ok", r->ok,
                          "cache_hit", r->cache_hit, "cubin", r->cubin_path, "key", r->key, "module_id",
                          r->module_id, "source_hash", r->source_hash, "compile_s", r->compile_s,
                          "ptxas", ptxas_json(&r->ptxas), "sass", sass_json(&r->sass));
    if (!j)
        die("cannot build the build record (jansson)");
    json_object_set_new(j, "error", r->error[0] ? json_text(r->error) : json_null());
    if (with_log)
        json_object_set_new(j, "log", json_text(r->log ? r->log : ""));
    return j;
}

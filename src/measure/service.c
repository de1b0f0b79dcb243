/* src/measure/service.c — a `croq-runner serve` worker as a child process: start, one
 * request line and one reply line at a time under a deadline, and the outcome of a worker
 * that died (service.h). */
#include "service.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "parse_common.h"
#include "spawn_runner.h"
#include "util/log.h"
#include "util/spawn.h"
#include "util/strbuf.h"

#define SERVICE_ERR_KEEP 65536     /* bytes of the worker's stderr kept per request (the last ones) */
#define SERVICE_QUIT_GRACE_S 2.0   /* a worker told to quit gets this long before SIGKILL */
#define SERVICE_DRAIN_S 1.0        /* reading a dying worker's last stderr */
#define SERVICE_START_TIMEOUT_S 60.0
#define SERVICE_REPLY_MAX (4 << 20)  /* a "line" longer than this is no reply: the worker goes */
#define SERVICE_PARTIAL_KEEP 65536   /* bytes of a broken reply kept with the outcome */
#define SERVICE_TICK_MS 50           /* how soon a worker's exit is noticed */
#define SERVICE_STALE_KEEP 4096      /* bytes of a dropped late reply kept in the request's stderr text */

struct measure_service {
    struct service_opts o;
    char runner[PATH_MAX], reference[16];
    char dtype_arg[16], shape_arg[96], seed_arg[32], device_arg[16];
    struct spawn_child c;
    bool up;
    char incumbent[PATH_MAX];      /* the worker's incumbent, "" none */
    struct strbuf out;             /* stdout not yet taken as a line */
    struct strbuf err;             /* stderr while serving the current request */
    long next_id;
    char foreign_why[256];         /* what the last foreign line was (transact) */
    int starts, losses;
    double last_busy_s;
};

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct measure_service *service_new(const struct service_opts *o)
{
    struct measure_service *s = xmalloc(sizeof *s);
    memset(s, 0, sizeof *s);
    s->o = *o;
    s->c = (struct spawn_child){0, -1, -1, -1};
    measure_runner_path(o->runner, s->runner, sizeof s->runner);
    snprintf(s->reference, sizeof s->reference, "%s", o->reference ? o->reference : "");
    snprintf(s->dtype_arg, sizeof s->dtype_arg, "%s", croq_dtype_name(o->dtype));
    snprintf(s->shape_arg, sizeof s->shape_arg, "%ldx%ldx%ld", o->shape.m, o->shape.n, o->shape.k);
    snprintf(s->seed_arg, sizeof s->seed_arg, "%llu", o->seed);
    snprintf(s->device_arg, sizeof s->device_arg, "%d", o->device);
    s->o.runner = s->runner;
    s->o.reference = s->reference[0] ? s->reference : NULL;
    return s;
}

static int argv_of(const struct measure_service *s, const char *argv[16])
{
    int n = 0;
    argv[n++] = s->runner;
    argv[n++] = "serve";
    argv[n++] = "--dtype", argv[n++] = s->dtype_arg;
    argv[n++] = "--shape", argv[n++] = s->shape_arg;
    argv[n++] = "--seed", argv[n++] = s->seed_arg;
    argv[n++] = "--device", argv[n++] = s->device_arg;
    if (s->reference[0])
        argv[n++] = "--reference", argv[n++] = s->reference;
    argv[n] = NULL;
    return n;
}

static void describe(const struct measure_service *s, const char *request, char *out, size_t len)
{
    const char *argv[16];
    int n = argv_of(s, argv);
    size_t k = 0;
    out[0] = '\0';
    for (int i = 0; i < n && k < len; i++)
        k += (size_t)snprintf(out + k, len - k, "%s%s", i ? " " : "", argv[i]);
    if (request && k < len)
        snprintf(out + k, len - k, " <<< %s", request);
}

/* ---- the worker's pipes ---- */

static void keep_err(struct measure_service *s, const char *buf, size_t n)
{
    strbuf_add(&s->err, buf, n);
    if (s->err.len > 2 * SERVICE_ERR_KEEP) { /* keep the last part: the reason a worker died is at the end */
        size_t drop = s->err.len - SERVICE_ERR_KEEP;
        memmove(s->err.buf, s->err.buf + drop, s->err.len - drop + 1);
        s->err.len -= drop;
    }
}

/* Read what is there on fd into sb / the stderr buffer; false at EOF or error. */
static bool pump(struct measure_service *s, int *fd, bool is_err)
{
    char chunk[65536];
    ssize_t r = read(*fd, chunk, sizeof chunk);
    if (r < 0 && (errno == EAGAIN || errno == EINTR))
        return true;
    if (r <= 0) {
        close(*fd);
        *fd = -1;
        return false;
    }
    if (is_err)
        keep_err(s, chunk, (size_t)r);
    else
        strbuf_add(&s->out, chunk, (size_t)r);
    return true;
}

/* The first whole line of stdout that starts with '{' (anything else the worker printed
 * goes with its stderr), malloc'd; NULL when there is none yet. */
static char *take_line(struct measure_service *s)
{
    for (;;) {
        char *nl = s->out.len ? memchr(s->out.buf, '\n', s->out.len) : NULL;
        if (!nl)
            return NULL;
        size_t n = (size_t)(nl - s->out.buf);
        char *line = xmalloc(n + 1);
        memcpy(line, s->out.buf, n);
        line[n] = '\0';
        memmove(s->out.buf, nl + 1, s->out.len - n);
        s->out.len -= n + 1;
        if (line[0] == '{')
            return line;
        keep_err(s, "stdout: ", 8);
        keep_err(s, line, n);
        keep_err(s, "\n", 1);
        free(line);
    }
}

enum wait_end { GOT_LINE, GOT_EOF, GOT_TIMEOUT, GOT_OVERSIZE };

/* Wait for a reply line until deadline (CLOCK_MONOTONIC s). The worker's own exit ends
 * the wait even when something it left behind still holds its stdout open. */
static enum wait_end wait_line(struct measure_service *s, double deadline, char **line)
{
    bool exited = false;
    for (;;) {
        if ((*line = take_line(s)))
            return GOT_LINE;
        if (s->out.len > SERVICE_REPLY_MAX)
            return GOT_OVERSIZE;
        if (s->c.out < 0 || exited)
            return GOT_EOF;
        double left = deadline - mono_s();
        if (left <= 0)
            return GOT_TIMEOUT;
        struct pollfd p[2] = {{.fd = s->c.out, .events = POLLIN}, {.fd = s->c.err, .events = POLLIN}};
        int ms = left * 1000 > SERVICE_TICK_MS ? SERVICE_TICK_MS : (int)(left * 1000) + 1;
        if (poll(p, s->c.err >= 0 ? 2 : 1, ms) < 0 && errno != EINTR)
            return GOT_EOF;
        if (s->c.err >= 0 && (p[1].revents & (POLLIN | POLLHUP | POLLERR)))
            pump(s, &s->c.err, true);
        if (p[0].revents & (POLLIN | POLLHUP | POLLERR))
            pump(s, &s->c.out, false);
        if (spawn_child_exited(&s->c)) { /* what it wrote is all there will be */
            exited = true;
            struct pollfd q = {.fd = s->c.out, .events = POLLIN};
            while (s->c.out >= 0 && s->out.len <= SERVICE_REPLY_MAX && poll(&q, 1, 0) > 0 && pump(s, &s->c.out, false))
                q.fd = s->c.out;
        }
    }
}

/* What is kept of a broken reply (capped), or NULL. */
static char *partial_of(const struct measure_service *s)
{
    if (!s->out.len)
        return NULL;
    size_t n = s->out.len < SERVICE_PARTIAL_KEEP ? s->out.len : SERVICE_PARTIAL_KEEP;
    char *p = xmalloc(n + 1);
    memcpy(p, s->out.buf, n);
    p[n] = '\0';
    return p;
}

/* The worker is gone or must go: read its last stderr (drain: it is exiting), kill what
 * is left of its process group, reap it. */
static void lose_worker(struct measure_service *s, bool drain, double grace_s, struct spawn_result *res)
{
    double until = mono_s() + (drain ? SERVICE_DRAIN_S : 0);
    while (s->c.err >= 0) {
        struct pollfd p = {.fd = s->c.err, .events = POLLIN};
        double left = until - mono_s();
        if (poll(&p, 1, left > 0 ? (int)(left * 1000) + 1 : 0) <= 0 || !pump(s, &s->c.err, true))
            break;
    }
    spawn_close(&s->c, grace_s, res);
    s->up = false;
    s->incumbent[0] = '\0';
    s->out.len = 0;
    if (s->out.buf)
        s->out.buf[0] = '\0';
}

static void set_process_facts(struct measure_result *r, const struct spawn_result *res)
{
    r->exit_code = res->exit_code;
    r->term_signal = res->term_signal;
    r->timed_out = res->timed_out;
}

/* A worker that ended without a reply: the outcome a one-shot run would have had. */
static void classify_death(struct measure_service *s, struct spawn_result *res, const char *partial,
                           struct measure_result *r)
{
    res->err = (char *)strbuf_str(&s->err);
    set_process_facts(r, res);
    if (!spawn_runner_classify(res, r)) {
        measure_parse(partial && *partial ? partial : "", r); /* half a line: bad output ... */
        if (r->status == MEASURE_BAD_OUTPUT && !(partial && *partial))
            snprintf(r->error, sizeof r->error, "worker ended without a reply");
        spawn_runner_reconcile(r); /* ... or a crash when it also exited non-zero */
    }
    res->err = NULL;
    s->losses++;
}

static void take_stderr(struct measure_service *s, struct measure_result *r)
{
    free(r->stderr_text);
    r->stderr_text = s->err.len ? xstrdup(s->err.buf) : NULL;
}

/* Start a worker and read its ready line. 0: up; 1: it did not come up (r says why);
 * -1: local failure. */
static int start(struct measure_service *s, struct measure_result *r)
{
    const char *argv[16];
    int eno = 0;
    argv_of(s, argv);
    struct spawn_opts so = {.argv = argv};
    describe(s, NULL, r->command, sizeof r->command);
    s->err.len = 0;
    if (s->err.buf)
        s->err.buf[0] = '\0';
    if (spawn_open(&so, &s->c, &eno)) {
        snprintf(r->error, sizeof r->error, "cannot start '%.512s': %s", s->runner, strerror(errno));
        return -1;
    }
    s->starts++;
    if (eno) {
        r->status = MEASURE_NO_RUNNER;
        snprintf(r->error, sizeof r->error, "cannot start runner '%.512s': %s", r->command, strerror(eno));
        return 1;
    }
    double limit = s->o.start_timeout_s > 0 ? s->o.start_timeout_s : SERVICE_START_TIMEOUT_S;
    char *line = NULL;
    struct spawn_result res;
    enum wait_end end = wait_line(s, mono_s() + limit, &line);
    if (end == GOT_LINE) {
        json_t *j = json_loads(line, 0, NULL);
        const char *st = json_string_value(json_object_get(j, "status"));
        json_int_t proto = json_integer_value(json_object_get(j, "protocol"));
        bool ok = st && !strcmp(st, "ok") && proto == SERVICE_PROTOCOL;
        json_decref(j);
        if (ok) {
            free(line);
            s->up = true;
            return 0;
        }
        measure_parse(line, r); /* no_gpu, bad_args, ... with the worker's error */
        if (r->status == MEASURE_OK) {
            r->status = MEASURE_BAD_OUTPUT;
            snprintf(r->error, sizeof r->error, "worker speaks serve protocol %lld, this tuner %d", (long long)proto,
                     SERVICE_PROTOCOL);
        }
        r->raw_json = line;
        lose_worker(s, true, SERVICE_QUIT_GRACE_S, &res);
        set_process_facts(r, &res);
        take_stderr(s, r);
        return 1;
    }
    char *partial = partial_of(s);
    lose_worker(s, end == GOT_EOF, end == GOT_EOF ? SERVICE_QUIT_GRACE_S : 0, &res);
    res.timed_out = end == GOT_TIMEOUT;
    res.limit_s = limit;
    classify_death(s, &res, partial, r);
    if (end == GOT_OVERSIZE) {
        r->status = MEASURE_BAD_OUTPUT;
        snprintf(r->error, sizeof r->error, "the worker's ready line is longer than %d bytes", SERVICE_REPLY_MAX);
    }
    r->raw_json = partial;
    take_stderr(s, r);
    return 1;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w, n -= (size_t)w;
    }
    return 0;
}

/* Whom a reply line answers. Ids count up over the service's life (never reused, across
 * workers too), so an id below the one in flight is an earlier request of ours. */
enum line_kind {
    LINE_ANSWERS, /* the request in flight (want: its id; its cubin when the line names one) */
    LINE_STALE,   /* an earlier request of ours: a late duplicate, nothing to do with this one */
    LINE_FOREIGN, /* no request of ours: no id, an id never sent, or the id with another cubin */
};

/* want: the id in flight (0: none, between requests); asked: its cubin (NULL: none).
 * why: for a foreign line, what is wrong with it. */
static enum line_kind classify_line(const struct measure_service *s, const char *line, long want, const char *asked,
                                    char *why, size_t whylen)
{
    json_t *j = json_loads(line, 0, NULL);
    json_t *id = json_object_get(j, "id");
    const char *cubin = json_string_value(json_object_get(j, "cubin"));
    enum line_kind k = LINE_FOREIGN;
    long v = json_is_integer(id) ? (long)json_integer_value(id) : 0;
    if (!j)
        snprintf(why, whylen, "it is not JSON");
    else if (!json_is_integer(id))
        snprintf(why, whylen, "it has no id");
    else if (want && v == want && cubin && asked && strcmp(cubin, asked))
        snprintf(why, whylen, "it has the id %ld but the cubin '%.200s', not '%.200s'", v, cubin, asked);
    else if (want && v == want)
        k = LINE_ANSWERS;
    else if (v >= 1 && v <= s->next_id && v != want)
        k = LINE_STALE;
    else
        snprintf(why, whylen, "its id %ld was never sent", v);
    json_decref(j);
    return k;
}

/* A late reply to an earlier request: dropped and said once on the terminal; while a
 * request is served (now_serving, its id) it is also kept in that request's stderr text. */
static void drop_stale(struct measure_service *s, const char *line, long now_serving)
{
    if (now_serving) {
        char head[160];
        size_t n = strlen(line);
        snprintf(head, sizeof head, "croqtuner: dropped a late reply to an earlier request while waiting for "
                 "request %ld: ", now_serving);
        keep_err(s, head, strlen(head));
        keep_err(s, line, n < SERVICE_STALE_KEEP ? n : SERVICE_STALE_KEEP);
        keep_err(s, "\n", 1);
    }
    log_warn("measurement worker pid %d sent a late reply to an earlier request (%.*s...): dropped, it answers "
             "nothing now", s->c.pid, 60, line);
}

/* One request to a running worker; the reply (or how the worker ended) into r. A late
 * reply to an earlier request is dropped and the wait goes on (same deadline); a line that
 * answers no request of ours drops the worker, and r->status is MEASURE_FOREIGN_REPLY (the
 * caller repeats the request on a new worker). */
static void transact(struct measure_service *s, json_t *req, double timeout_s, struct measure_result *r)
{
    json_object_set_new(req, "id", json_integer(++s->next_id));
    char *text = json_dumps(req, JSON_COMPACT | JSON_SORT_KEYS);
    describe(s, text, r->command, sizeof r->command);
    s->err.len = 0;
    if (s->err.buf)
        s->err.buf[0] = '\0';
    double t0 = mono_s();
    r->limit_s = timeout_s;
    struct spawn_result res;
    char *line = NULL, why[512];
    const char *asked = json_string_value(json_object_get(req, "cubin"));
    enum wait_end end = GOT_EOF;
    enum line_kind kind = LINE_ANSWERS;
    if (text && write_all(s->c.in, text, strlen(text)) == 0 && write_all(s->c.in, "\n", 1) == 0)
        while ((end = wait_line(s, t0 + timeout_s, &line)) == GOT_LINE &&
               (kind = classify_line(s, line, s->next_id, asked, why, sizeof why)) == LINE_STALE) {
            drop_stale(s, line, s->next_id);
            free(line);
            line = NULL;
        }
    free(text);
    r->wall_s = mono_s() - t0;
    if (end == GOT_LINE && kind == LINE_FOREIGN) {
        /* nothing it says is this request's outcome, and the worker that wrote it cannot be
         * trusted to answer the next one */
        r->raw_json = line;
        measure_result_clear_fields(r);
        r->status = MEASURE_FOREIGN_REPLY;
        snprintf(s->foreign_why, sizeof s->foreign_why, "%.250s", why);
        snprintf(r->error, sizeof r->error, "the worker's reply line answers no request of ours (%.600s): the worker "
                 "is dropped", why);
        lose_worker(s, false, 0, &res);
        set_process_facts(r, &res);
        s->losses++;
    } else if (end == GOT_LINE) {
        r->raw_json = line;
        measure_parse(line, r);
        json_t *j = json_loads(line, 0, NULL);
        bool exits = json_is_true(json_object_get(j, "worker_exits"));
        json_decref(j);
        if (exits) { /* a fault poisoned its context: it ends after this reply */
            lose_worker(s, true, SERVICE_QUIT_GRACE_S, &res);
            set_process_facts(r, &res);
            s->losses++;
        }
    } else {
        /* half a reply: kept with the outcome (measure_raw_record) */
        char *partial = partial_of(s);
        lose_worker(s, end == GOT_EOF, end == GOT_EOF ? SERVICE_QUIT_GRACE_S : 0, &res);
        res.timed_out = end == GOT_TIMEOUT;
        res.limit_s = timeout_s;
        classify_death(s, &res, partial, r);
        if (end == GOT_OVERSIZE) {
            r->status = MEASURE_BAD_OUTPUT;
            snprintf(r->error, sizeof r->error, "the worker's reply is longer than %d bytes: the worker is dropped",
                     SERVICE_REPLY_MAX);
        }
        r->raw_json = partial;
    }
    take_stderr(s, r);
    s->last_busy_s = mono_s();
}

/* Output between requests, judged as transact judges a line: a late reply to an earlier
 * request is dropped and the worker kept; a whole line that answers no request of ours
 * (or more than a reply's worth without a newline) drops the worker, so it can never be
 * taken for the next request's answer. A partial line stays for the next wait to judge
 * once it is whole. A worker that ended after its last whole reply (or by itself while
 * idle) is not the next candidate's fault either: reaped here, and a new one starts. */
static void reap_if_gone(struct measure_service *s)
{
    struct pollfd q = {.fd = s->c.out, .events = POLLIN};
    struct spawn_result res;
    char *line, why[512];
    while (s->up && s->c.out >= 0 && s->out.len <= SERVICE_REPLY_MAX && poll(&q, 1, 0) > 0 &&
           pump(s, &s->c.out, false))
        q.fd = s->c.out;
    while (s->up && (line = take_line(s))) {
        if (classify_line(s, line, 0, NULL, why, sizeof why) == LINE_STALE) {
            drop_stale(s, line, 0);
        } else {
            lose_worker(s, false, 0, &res);
            s->losses++;
            log_warn("measurement worker wrote a line between requests that answers no request of ours (%s): "
                     "dropped, starting a new one", why);
        }
        free(line);
    }
    if (s->up && s->out.len > SERVICE_REPLY_MAX) {
        lose_worker(s, false, 0, &res);
        s->losses++;
        log_warn("measurement worker wrote more than %d bytes between requests: dropped, starting a new one",
                 SERVICE_REPLY_MAX);
    }
    if (s->up && spawn_child_exited(&s->c)) {
        struct spawn_result res;
        int pid = s->c.pid;
        lose_worker(s, true, 0, &res);
        log_warn("measurement worker pid %d ended between requests (%s%d); starting a new one", pid,
                 res.term_signal ? "signal " : "exit ", res.term_signal ? res.term_signal : res.exit_code);
    }
}

/* r's fields to "unknown"; frees what a previous outcome held when release is set (r was
 * filled before), otherwise r is taken as uninitialised. */
static void result_reset(struct measure_result *r, bool release)
{
    if (release)
        measure_result_release(r);
    memset(r, 0, sizeof *r);
    measure_result_clear_fields(r);
    r->exit_code = -1;
}

double service_default_timeout(const struct croq_shape *sh, const struct service_req *q)
{
    double m = (double)sh->m, n = (double)sh->n, k = (double)sh->k;
    int pairs = q->pairs > 0 ? q->pairs : PAIRED_DEFAULT_PAIRS;
    double trial_s = (q->min_trial_ms > 0 ? q->min_trial_ms : 20.0) / 1e3 + 2.0 * m * n * k / 100e12;
    double gpu_s = q->no_time ? 2.0 * m * n * k / 100e12
                              : 2.0 + 2.0 * pairs * trial_s + 2.0 * (double)q->warmup_launches * 2.0 * m * n * k / 100e12;
    double host_s = 2.0 * (m * k + n * k + 2 * m * n) / 50e6;
    return 20.0 + 4.0 * (gpu_s + host_s);
}

/* Make q->incumbent the worker's incumbent. 0, or 1 with r saying why not. */
static int set_incumbent(struct measure_service *s, const struct service_req *q, double timeout_s,
                         struct measure_result *r)
{
    json_t *req = json_pack("{s:s, s:s}", "op", "set_incumbent", "cubin", q->incumbent);
    transact(s, req, timeout_s, r);
    json_decref(req);
    if (r->status != MEASURE_OK)
        return 1;
    snprintf(s->incumbent, sizeof s->incumbent, "%s", q->incumbent);
    return 0;
}

int service_start(struct measure_service *s, struct measure_result *r)
{
    result_reset(r, false);
    reap_if_gone(s);
    if (s->up) {
        r->status = MEASURE_OK;
        return 0;
    }
    int rc = start(s, r);
    if (!rc)
        r->status = MEASURE_OK;
    return rc < 0 ? -1 : 0;
}

/* One try of q: a worker up, the incumbent set, the measure request. 0 with r's outcome
 * (MEASURE_FOREIGN_REPLY: a line that answers no request of ours dropped the worker), -1
 * on a local failure. */
static int measure_once(struct measure_service *s, const struct service_req *q, double timeout_s,
                        struct measure_result *r)
{
    reap_if_gone(s);
    if (!s->up) {
        int rc = start(s, r);
        if (rc)
            return rc < 0 ? -1 : 0;
    }
    if (q->incumbent && strcmp(q->incumbent, s->incumbent)) {
        /* the incumbent passed before: a failure here is the worker's (one more try on a
         * new worker when it died), never the candidate's */
        for (int tries = 1; set_incumbent(s, q, timeout_s, r); tries++) {
            if (r->status == MEASURE_FOREIGN_REPLY)
                return 0; /* the whole request is repeated */
            if (s->up || tries == 2) {
                char why[sizeof r->error];
                snprintf(why, sizeof why, "%s: %.900s", measure_status_name(r->status), r->error);
                r->status = MEASURE_INTERNAL_ERROR;
                snprintf(r->error, sizeof r->error, "the incumbent '%.300s' could not be set in the worker: %.600s",
                         q->incumbent, why);
                return 0;
            }
            result_reset(r, true);
            int rc = start(s, r);
            if (rc)
                return rc < 0 ? -1 : 0;
        }
        result_reset(r, true);
    }
    json_t *req = json_pack("{s:s, s:s, s:I, s:b, s:b, s:s}", "op", "measure", "cubin", q->cubin, "verify_seed",
                            (json_int_t)q->verify_seed, "time", !q->no_time, "paired", q->incumbent != NULL, "l2",
                            q->cold_l2 ? "cold" : "warm");
    if (q->pairs > 0)
        json_object_set_new(req, "pairs", json_integer(q->pairs));
    if (q->min_trial_ms > 0)
        json_object_set_new(req, "min_trial_ms", json_real(q->min_trial_ms));
    if (q->max_iters > 0)
        json_object_set_new(req, "max_iters", json_integer(q->max_iters));
    if (q->warmup_launches > 0)
        json_object_set_new(req, "warmup_min_launches", json_integer(q->warmup_launches));
    if (q->stop_below > 0 && q->incumbent)
        json_object_set_new(req, "stop_below", json_real(q->stop_below));
    transact(s, req, timeout_s, r);
    json_decref(req);
    return 0;
}

/* One request (once: its one try on a worker) and, when a reply line answered no request of
 * ours, the request repeated once on a new worker; a second such line is the outcome
 * MEASURE_FOREIGN_REPLY, never the request's own (the tuner's side is broken). what names
 * the request in messages. */
typedef int (*once_fn)(struct measure_service *s, const void *q, double timeout_s, struct measure_result *r);
static int repeat_on_foreign(struct measure_service *s, once_fn once, const void *q, double timeout_s,
                             const char *what, struct measure_result *r)
{
    char first[sizeof s->foreign_why];
    result_reset(r, false);
    for (int round = 1;; round++) {
        if (once(s, q, timeout_s, r))
            return -1;
        if (r->status != MEASURE_FOREIGN_REPLY)
            return 0;
        if (round == 2) {
            snprintf(r->error, sizeof r->error, "twice, on two workers, a reply line answered no request of ours "
                     "(%.250s; then %.250s), for %.400s", first, s->foreign_why, what);
            return 0;
        }
        snprintf(first, sizeof first, "%s", s->foreign_why);
        log_warn("%s: %s; the request is repeated on a new worker", what, r->error);
        result_reset(r, true);
    }
}

static int measure_once_v(struct measure_service *s, const void *q, double timeout_s, struct measure_result *r)
{
    return measure_once(s, q, timeout_s, r);
}

int service_measure(struct measure_service *s, const struct service_req *q, struct measure_result *r)
{
    double timeout_s = q->timeout_s > 0 ? q->timeout_s : service_default_timeout(&s->o.shape, q);
    char what[PATH_MAX + 40];
    snprintf(what, sizeof what, "the request of '%s'", q->cubin);
    return repeat_on_foreign(s, measure_once_v, q, timeout_s, what, r);
}

double service_ladder_timeout(const struct croq_shape *sh, const struct service_ladder_req *q)
{
    double m = (double)sh->m, n = (double)sh->n, k = (double)sh->k, launch_s = 2.0 * m * n * k / 100e12;
    int rounds = q->rounds > 0 ? q->rounds : 12;
    double trial_s = (q->min_trial_ms > 0 ? q->min_trial_ms : 20.0) / 1e3 + launch_s;
    double gpu_s = 2.0 + q->n * (rounds * trial_s + 2.0 * trial_s + 4.0 * launch_s);
    double host_s = 2.0 * (m * k + n * k + 2 * m * n) / 50e6;
    return 30.0 + 4.0 * (gpu_s + host_s);
}

/* One ladder request on a running (or started) worker. 0 with r's outcome, -1 local. */
static int ladder_once(struct measure_service *s, const struct service_ladder_req *q, double timeout_s,
                       struct measure_result *r)
{
    reap_if_gone(s);
    if (!s->up) {
        int rc = start(s, r);
        if (rc)
            return rc < 0 ? -1 : 0;
    }
    json_t *cubins = json_array();
    for (int i = 0; i < q->n; i++)
        json_array_append_new(cubins, json_string(q->cubins[i]));
    json_t *req = json_pack("{s:s, s:o, s:i, s:s}", "op", "ladder", "cubins", cubins, "rounds",
                            q->rounds > 0 ? q->rounds : 12, "l2", q->cold_l2 ? "cold" : "warm");
    if (q->min_trial_ms > 0)
        json_object_set_new(req, "min_trial_ms", json_real(q->min_trial_ms));
    transact(s, req, timeout_s, r);
    json_decref(req);
    /* measure_parse read the reply as a measurement; a ladder's status is its own */
    if (r->raw_json && r->status != MEASURE_FOREIGN_REPLY) {
        json_t *j = json_loads(r->raw_json, 0, NULL);
        const char *st = json_string_value(json_object_get(j, "status"));
        const char *err = json_string_value(json_object_get(j, "error"));
        int parsed = measure_status_parse(st);
        if (j && parsed >= 0 && (r->status == MEASURE_OK || r->status == MEASURE_BAD_OUTPUT)) {
            r->status = (enum measure_status)parsed;
            snprintf(r->error, sizeof r->error, "%s", err ? err : "");
        }
        json_decref(j);
    }
    return 0;
}

static int ladder_once_v(struct measure_service *s, const void *q, double timeout_s, struct measure_result *r)
{
    return ladder_once(s, q, timeout_s, r);
}

int service_ladder(struct measure_service *s, const struct service_ladder_req *q, struct measure_result *r)
{
    double timeout_s = q->timeout_s > 0 ? q->timeout_s : service_ladder_timeout(&s->o.shape, q);
    char what[64];
    snprintf(what, sizeof what, "a ladder of %d kernels", q->n);
    return repeat_on_foreign(s, ladder_once_v, q, timeout_s, what, r);
}

void service_forget_incumbent(struct measure_service *s) { s->incumbent[0] = '\0'; }
int service_pid(const struct measure_service *s) { return s->up ? s->c.pid : 0; }
double service_last_busy_s(const struct measure_service *s) { return s->last_busy_s; }
int service_starts(const struct measure_service *s) { return s->starts; }
int service_losses(const struct measure_service *s) { return s->losses; }

void service_free(struct measure_service *s)
{
    if (!s)
        return;
    if (s->up) {
        struct spawn_result res;
        write_all(s->c.in, "{\"op\":\"quit\"}\n", 14);
        lose_worker(s, false, SERVICE_QUIT_GRACE_S, &res);
    }
    strbuf_release(&s->out);
    strbuf_release(&s->err);
    free(s);
}

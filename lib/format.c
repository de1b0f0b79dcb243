/* lib/format.c — sizes, host prune/compress/validate (src/format/sparse24, whose wgmma
 * order the kernels read) and their device versions (lib/compress.cu). */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include "format/sparse24.h"
#include "knobs/knobs.h"

#define MAX_DIM (1L << 20)

static bool dtype_ok(croqsparse_dtype_t d) { return d == CROQSPARSE_F16 || d == CROQSPARSE_E4M3; }

/* The value checks of the header's order (after the NULL pointers): the dtype, and every
 * dimension at least 1 (a size below 1 is no shape: INVALID_VALUE, not a shape rule). */
static croqsparse_status_t check_values(const char *fn, croqsparse_dtype_t dtype, long m, long n, long k)
{
    if (!dtype_ok(dtype))
        return cs_fail(CROQSPARSE_STATUS_INVALID_VALUE, fn, "dtype %d is not CROQSPARSE_F16 or CROQSPARSE_E4M3",
                       (int)dtype);
    if (m < 1 || n < 1 || k < 1)
        return cs_fail(CROQSPARSE_STATUS_INVALID_VALUE, fn, "M=%ld N=%ld K=%ld: every dimension must be at least 1",
                       m, n, k);
    return CROQSPARSE_STATUS_SUCCESS;
}

/* dtype and M, K valid, then within the rules with K % k_multiple == 0. */
static croqsparse_status_t check_mk(const char *fn, croqsparse_dtype_t dtype, long m, long k, long k_multiple)
{
    croqsparse_status_t s = check_values(fn, dtype, m, 1, k);
    if (s)
        return s;
    if (m > MAX_DIM || k > MAX_DIM)
        return cs_fail(CROQSPARSE_STATUS_NOT_SUPPORTED, fn, "M=%ld K=%ld: each must be in [1, %ld]", m, k, MAX_DIM);
    if (k % k_multiple)
        return cs_fail(CROQSPARSE_STATUS_NOT_SUPPORTED, fn, "K=%ld is not a multiple of %ld", k, k_multiple);
    return CROQSPARSE_STATUS_SUCCESS;
}

croqsparse_status_t cs_check_values(const char *fn, croqsparse_dtype_t dtype, long m, long n, long k)
{
    return check_values(fn, dtype, m, n, k);
}

croqsparse_status_t cs_check_shape(const char *fn, croqsparse_dtype_t dtype, long m, long n, long k)
{
    char why[CROQ_WHY_MAX];
    struct croq_shape s = {m, n, k};
    croqsparse_status_t st = check_values(fn, dtype, m, n, k);
    if (st)
        return st;
    if (!shape_validate((int)dtype, &s, why, sizeof why))
        return cs_fail(CROQSPARSE_STATUS_NOT_SUPPORTED, fn, "%s", why);
    return CROQSPARSE_STATUS_SUCCESS;
}

size_t croqsparse_values_bytes(croqsparse_dtype_t dtype, long m, long k)
{
    if (!dtype_ok(dtype) || m < 1 || k < 1 || m > MAX_DIM || k > MAX_DIM || k % 64)
        return 0;
    return sparse24_values_bytes((int)dtype, m, k);
}

size_t croqsparse_meta_bytes(long m, long k)
{
    if (m < 1 || k < 1 || m > MAX_DIM || k > MAX_DIM || k % 64)
        return 0;
    return sparse24_wgmma_meta_words(m, k) * 4;
}

static croqsparse_status_t data_error(const char *fn, const struct sparse24_error *e)
{
    return cs_fail(e->count ? CROQSPARSE_STATUS_NOT_SPARSE : CROQSPARSE_STATUS_INVALID_VALUE, fn, "%s", e->msg);
}

croqsparse_status_t croqsparse_prune_host(croqsparse_dtype_t dtype, long m, long k, const void *dense, void *out)
{
    static const char fn[] = "croqsparse_prune_host";
    struct sparse24_error e;
    croqsparse_status_t s;
    cs_clear();
    if (!dense || !out)
        return cs_fail(CROQSPARSE_STATUS_INVALID_VALUE, fn, "dense or out is NULL");
    if ((s = check_mk(fn, dtype, m, k, 4)))
        return s;
    if (sparse24_prune((int)dtype, m, k, dense, out, &e) == 0)
        return CROQSPARSE_STATUS_SUCCESS;
    /* a NaN has no magnitude to rank: its own status, not "not 2:4" (nothing was written) */
    return e.count ? cs_fail(CROQSPARSE_STATUS_NAN, fn, "%s", e.msg) : data_error(fn, &e);
}

croqsparse_status_t croqsparse_compress_host(croqsparse_dtype_t dtype, long m, long k, const void *dense,
                                             void *values, void *meta)
{
    static const char fn[] = "croqsparse_compress_host";
    struct sparse24_error e;
    croqsparse_status_t s;
    cs_clear();
    if (!dense || !values || !meta)
        return cs_fail(CROQSPARSE_STATUS_INVALID_VALUE, fn, "dense, values or meta is NULL");
    if ((s = check_mk(fn, dtype, m, k, 64)))
        return s;
    uint32_t *natural = malloc(sparse24_meta_words(m, k) * 4);
    if (!natural)
        return cs_fail(CROQSPARSE_STATUS_OUT_OF_MEMORY, fn, "out of host memory (%zu B)", sparse24_meta_words(m, k) * 4);
    int rc = sparse24_compress((int)dtype, m, k, dense, values, natural, &e) ||
             sparse24_reorder_meta((int)dtype, m, k, natural, meta, &e);
    free(natural);
    return rc ? data_error(fn, &e) : CROQSPARSE_STATUS_SUCCESS;
}

croqsparse_status_t croqsparse_validate_host(croqsparse_dtype_t dtype, long m, long k, const void *dense,
                                             long *bad_row, long *bad_group)
{
    static const char fn[] = "croqsparse_validate_host";
    struct sparse24_error e;
    croqsparse_status_t s;
    cs_clear();
    if (!dense)
        return cs_fail(CROQSPARSE_STATUS_INVALID_VALUE, fn, "dense is NULL");
    if ((s = check_mk(fn, dtype, m, k, 4)))
        return s;
    if (sparse24_check((int)dtype, m, k, dense, &e) == 0)
        return CROQSPARSE_STATUS_SUCCESS;
    if (e.count && e.listed) {
        if (bad_row)
            *bad_row = e.bad[0].row;
        if (bad_group)
            *bad_group = e.bad[0].group;
        return cs_fail(CROQSPARSE_STATUS_NOT_SPARSE, fn, "row %ld, group %ld (K %ld..%ld) has more than 2 non-zeros "
                       "(%ld groups in all)", e.bad[0].row, e.bad[0].group, 4 * e.bad[0].group,
                       4 * e.bad[0].group + 3, e.count);
    }
    return data_error(fn, &e);
}

/* Grid-stride launch of f over `items` on stream. */
static croqsparse_status_t launch_1d(const char *fn, CUfunction f, long long items, void **params, CUstream stream)
{
    const unsigned block = 256;
    long long blocks = (items + block - 1) / block;
    unsigned grid = (unsigned)(blocks < 65536 ? (blocks > 0 ? blocks : 1) : 65536);
    CS_CU(fn, cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, stream, params, NULL));
    return CROQSPARSE_STATUS_SUCCESS;
}

croqsparse_status_t croqsparse_prune(croqsparse_handle_t h, croqsparse_dtype_t dtype, long m, long k,
                                     const void *dense, void *out, CUstream stream)
{
    static const char fn[] = "croqsparse_prune";
    croqsparse_status_t s;
    bool pushed;
    cs_clear();
    if (!h || !dense || !out)
        return cs_fail(CROQSPARSE_STATUS_INVALID_VALUE, fn, "handle, dense or out is NULL");
    if ((s = check_mk(fn, dtype, m, k, 4)) || (s = cs_enter(h, fn, &pushed)))
        return s;
    CUdeviceptr d = (CUdeviceptr)dense, o = (CUdeviceptr)out;
    int f16 = dtype == CROQSPARSE_F16;
    long long groups = (long long)m * (k / 4);
    int values = 0;
    void *params[] = {&d, &o, &f16, &groups, &values};
    s = launch_1d(fn, h->fn_groups, groups, params, stream);
    cs_leave(pushed);
    return s;
}

croqsparse_status_t croqsparse_compress(croqsparse_handle_t h, croqsparse_dtype_t dtype, long m, long k,
                                        const void *dense, void *values, void *meta, CUstream stream)
{
    static const char fn[] = "croqsparse_compress";
    croqsparse_status_t s;
    bool pushed;
    cs_clear();
    if (!h || !dense || !values || !meta)
        return cs_fail(CROQSPARSE_STATUS_INVALID_VALUE, fn, "handle, dense, values or meta is NULL");
    if ((s = check_mk(fn, dtype, m, k, 64)) || (s = cs_enter(h, fn, &pushed)))
        return s;
    CUdeviceptr d = (CUdeviceptr)dense, v = (CUdeviceptr)values, mt = (CUdeviceptr)meta;
    int f16 = dtype == CROQSPARSE_F16;
    long long groups = (long long)m * (k / 4), words = (long long)sparse24_wgmma_meta_words(m, k);
    int values_mode = 1;
    void *pv[] = {&d, &v, &f16, &groups, &values_mode};
    void *pm[] = {&d, &mt, &f16, &m, &k, &words};
    s = launch_1d(fn, h->fn_groups, groups, pv, stream);
    if (s == CROQSPARSE_STATUS_SUCCESS)
        s = launch_1d(fn, h->fn_meta, words, pm, stream);
    cs_leave(pushed);
    return s;
}

/* lib/handle.c — the per-device handle: the driver (loaded at run time, launch/driver.h),
 * primary context, compression kernels, and the kernel pack with its identity check (a
 * pack's tuned kernels count as tuned only on the GPU model and CUDA major version it was
 * made for: cs_pack_trust). */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

croqsparse_status_t cs_enter(croqsparse_handle_t h, const char *fn, bool *pushed)
{
    CUcontext cur = NULL;
    *pushed = false;
    cs_clear();
    CS_CU(fn, cuCtxGetCurrent, (&cur));
    if (cur == h->ctx)
        return CROQSPARSE_STATUS_SUCCESS;
    CS_CU(fn, cuCtxPushCurrent, (h->ctx));
    *pushed = true;
    return CROQSPARSE_STATUS_SUCCESS;
}

void cs_leave(bool pushed)
{
    CUcontext ignored;
    if (pushed)
        KL_DRV(cuCtxPopCurrent)(&ignored);
}

enum pack_trust cs_pack_trust(const struct pack *p, const char *gpu, int cuda_major, char *note, size_t len)
{
    note[0] = '\0';
    if (p->cuda_major != cuda_major) {
        snprintf(note, len, "pack compiled with CUDA %d.%d, the driver supports CUDA %d", p->cuda_major,
                 p->cuda_minor, cuda_major);
        return PACK_TRUST_NONE;
    }
    if (strcmp(p->gpu, gpu)) {
        snprintf(note, len, "pack tuned on '%s', this GPU is '%s'", p->gpu, gpu);
        return PACK_TRUST_ELSEWHERE;
    }
    return PACK_TRUST_HERE;
}

/* What the handle does with a pack of that trust, after cs_pack_trust's reason. */
static const char *trust_consequence(enum pack_trust t)
{
    return t == PACK_TRUST_ELSEWHERE ? ": its kernels are ranked as untuned here (croqsparse_plan_search times "
                                       "them on this GPU)"
           : t == PACK_TRUST_NONE    ? ": only its fallback kernels run"
                                     : "";
}

void cs_handle_note(croqsparse_handle_t h, char *note, size_t len)
{
    snprintf(note, len, "%s%s%s", h->pack_note, h->pack_note[0] && h->model_note[0] ? "; " : "", h->model_note);
}

/* Parse bytes as h's pack. strict: a pack that does not name this GPU and CUDA major is
 * refused (PACK_MISMATCH); else it is kept with the trust cs_pack_trust gives it. bytes:
 * owned afterwards unless NULL. */
static croqsparse_status_t adopt_pack(croqsparse_handle_t h, const char *fn, const void *data, size_t size,
                                      unsigned char *owned, bool strict)
{
    struct pack p;
    char err[512], note[400]; /* the reason, plus trust_consequence's words, fits pack_note */
    if (pack_parse(data, size, &p, err, sizeof err)) {
        free(owned);
        return cs_fail(CROQSPARSE_STATUS_INVALID_PACK, fn, "%s", err);
    }
    enum pack_trust trust = cs_pack_trust(&p, h->gpu, h->cuda_major, note, sizeof note);
    if (strict && trust != PACK_TRUST_HERE) {
        pack_release(&p);
        free(owned);
        return cs_fail(CROQSPARSE_STATUS_PACK_MISMATCH, fn, "%s: refused", note);
    }
    /* A model that does not parse costs the ranking, not the pack: its kernels are
     * checked and run; the plans rank them by the nearest shape and say why. */
    char why[400] = "";
    struct cs_model *model = cs_model_load(&p, why, sizeof why);
    pthread_mutex_lock(&h->lock);
    pack_release(&h->pack);
    free(h->pack_bytes);
    cs_model_free(h->model);
    h->model = model;
    h->pack = p;
    h->pack_bytes = owned;
    h->trust = trust;
    snprintf(h->pack_note, sizeof h->pack_note, "%s%s", note, note[0] ? trust_consequence(trust) : "");
    h->model_note[0] = '\0';
    if (!model && p.model_bytes)
        snprintf(h->model_note, sizeof h->model_note, "the pack's cost model is not used: %s", why);
    pthread_mutex_unlock(&h->lock);
    return CROQSPARSE_STATUS_SUCCESS;
}

static croqsparse_status_t open_device(croqsparse_handle_t h, int device)
{
    static const char fn[] = "croqsparse_create";
    int major = 0, minor = 0, version = 0;
    CS_CU(fn, cuInit, (0));
    CS_CU(fn, cuDeviceGet, (&h->dev, device));
    CS_CU(fn, cuDeviceGetAttribute, (&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, h->dev));
    CS_CU(fn, cuDeviceGetAttribute, (&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, h->dev));
    CS_CU(fn, cuDeviceGetAttribute, (&h->sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, h->dev));
    CS_CU(fn, cuDeviceGetName, (h->gpu, sizeof h->gpu, h->dev));
    CS_CU(fn, cuDriverGetVersion, (&version));
    h->driver_version = version;
    h->cuda_major = version / 1000;
    if (major != 9 || minor != 0)
        return cs_fail(CROQSPARSE_STATUS_NO_DEVICE, fn, "device %d ('%s') is compute capability %d.%d; the "
                       "kernels are sm_90a (Hopper) code", device, h->gpu, major, minor);
    CS_CU(fn, cuDevicePrimaryCtxRetain, (&h->ctx, h->dev));
    return CROQSPARSE_STATUS_SUCCESS;
}

static croqsparse_status_t load_compress(croqsparse_handle_t h)
{
    static const char fn[] = "croqsparse_create";
    CS_CU(fn, cuMemAlloc, (&h->placeholder, 256));
    CS_CU(fn, cuModuleLoadData, (&h->compress, croqsparse_compress_cubin));
    CS_CU(fn, cuModuleGetFunction, (&h->fn_groups, h->compress, "croqsparse_groups"));
    CS_CU(fn, cuModuleGetFunction, (&h->fn_meta, h->compress, "croqsparse_meta"));
    return CROQSPARSE_STATUS_SUCCESS;
}

croqsparse_status_t croqsparse_create(croqsparse_handle_t *handle, int device)
{
    static const char fn[] = "croqsparse_create";
    croqsparse_status_t s;
    bool pushed = false;
    cs_clear();
    if (!handle)
        return cs_fail(CROQSPARSE_STATUS_INVALID_VALUE, fn, "handle is NULL");
    *handle = NULL;
    /* The driver is loaded here, not by the program loader, so a machine without one gets
     * this status and the reason instead of a program that does not start. */
    if (!kl_driver())
        return cs_fail(CROQSPARSE_STATUS_NO_DEVICE, fn, "%s", kl_driver_error());
    croqsparse_handle_t h = calloc(1, sizeof *h);
    if (!h)
        return cs_fail(CROQSPARSE_STATUS_OUT_OF_MEMORY, fn, "out of host memory");
    h->device = device;
    pthread_mutex_init(&h->lock, NULL);
    if ((s = open_device(h, device)) == CROQSPARSE_STATUS_SUCCESS && (s = cs_enter(h, fn, &pushed)) == 0) {
        s = load_compress(h);
        if (s == CROQSPARSE_STATUS_SUCCESS)
            s = adopt_pack(h, fn, croqsparse_default_pack, croqsparse_default_pack_size, NULL, false);
        cs_leave(pushed);
    }
    if (s != CROQSPARSE_STATUS_SUCCESS) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", croqsparse_last_error());
        croqsparse_destroy(h);
        return cs_fail(s, fn, "%s", strchr(msg, ' ') ? strchr(msg, ' ') + 1 : msg);
    }
    *handle = h;
    return CROQSPARSE_STATUS_SUCCESS;
}

croqsparse_status_t croqsparse_load_pack(croqsparse_handle_t h, const char *path)
{
    static const char fn[] = "croqsparse_load_pack";
    cs_clear();
    if (!h || !path)
        return cs_fail(CROQSPARSE_STATUS_INVALID_VALUE, fn, "handle or path is NULL");
    FILE *f = fopen(path, "rb");
    if (!f)
        return cs_fail(CROQSPARSE_STATUS_INVALID_VALUE, fn, "cannot open '%s'", path);
    size_t cap = 1 << 20, len = 0, n;
    unsigned char *buf = malloc(cap);
    while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0)
        if ((len += n) == cap) {
            unsigned char *bigger = realloc(buf, cap *= 2);
            if (!bigger)
                free(buf);
            buf = bigger;
        }
    bool bad = ferror(f);
    fclose(f);
    if (!buf)
        return cs_fail(CROQSPARSE_STATUS_OUT_OF_MEMORY, fn, "out of host memory reading '%s'", path);
    if (bad) {
        free(buf);
        return cs_fail(CROQSPARSE_STATUS_INVALID_VALUE, fn, "error reading '%s'", path);
    }
    croqsparse_status_t s = adopt_pack(h, fn, buf, len, buf, true);
    if (s != CROQSPARSE_STATUS_SUCCESS) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", croqsparse_last_error() + strlen(fn) + 2);
        cs_fail(s, fn, "'%s': %s", path, msg);
    }
    return s;
}

croqsparse_status_t croqsparse_destroy(croqsparse_handle_t h)
{
    bool pushed = false;
    if (!h)
        return CROQSPARSE_STATUS_SUCCESS;
    if (h->ctx && cs_enter(h, "croqsparse_destroy", &pushed) == CROQSPARSE_STATUS_SUCCESS) {
        if (h->compress)
            KL_DRV(cuModuleUnload)(h->compress); /* acts on the current context: the handle's */
        if (h->placeholder)
            KL_DRV(cuMemFree)(h->placeholder);
        cs_leave(pushed);
    }
    if (h->ctx)
        KL_DRV(cuDevicePrimaryCtxRelease)(h->dev);
    pack_release(&h->pack);
    free(h->pack_bytes);
    cs_model_free(h->model);
    pthread_mutex_destroy(&h->lock);
    free(h);
    return CROQSPARSE_STATUS_SUCCESS;
}

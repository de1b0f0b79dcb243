/* src/launch/internal.h — what the launch module's files share (not installed). */
#ifndef CROQ_LAUNCH_INTERNAL_H
#define CROQ_LAUNCH_INTERNAL_H

#include "launch.h"

/* Fill *e and return -1. */
int kl_fail(struct kl_error *e, enum kl_status s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int kl_fail_cu(struct kl_error *e, enum kl_status s, CUresult rc, const char *call, const char *file,
               int line);

/* KL_CU(e, status, call): a failing driver call fills *e and returns -1. */
#define KL_CU(e, status, call)                                              \
    do {                                                                    \
        CUresult rc_ = (call);                                              \
        if (rc_ != CUDA_SUCCESS)                                            \
            return kl_fail_cu((e), (status), rc_, #call, __FILE__, __LINE__); \
    } while (0)

#define KL_TRY(call)        \
    do {                    \
        if ((call) != 0)    \
            return -1;      \
    } while (0)

/* Encode the maps abi asks for at o's buffers (tmaps.c); maps with box[0] == 0 are
 * zeroed. Rebind: point the encoded maps of args at o's buffers. */
int kl_tmaps_encode(const struct croq_kernel_abi *abi, const struct kl_operands *o,
                    struct croq_gemm_args *args, struct kl_error *e);
int kl_tmaps_rebind(const struct croq_kernel_abi *abi, const struct kl_operands *o,
                    struct croq_gemm_args *args, struct kl_error *e);

#endif

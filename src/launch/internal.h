/* src/launch/internal.h — what the launch module's files share (not installed). */
#ifndef CROQ_LAUNCH_INTERNAL_H
#define CROQ_LAUNCH_INTERNAL_H

#include "driver.h"
#include "launch.h"

/* Fill *e and return -1. */
int kl_fail(struct kl_error *e, enum kl_status s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int kl_fail_cu(struct kl_error *e, enum kl_status s, CUresult rc, const char *call, const char *file,
               int line);

/* KL_CU(e, status, cuFoo, (args)): call the driver's cuFoo (driver.h); a failure fills
 * *e, naming the call as written ("cuFoo(args)"), and returns -1. */
#define KL_CU(e, status, name, args)                                                 \
    do {                                                                             \
        CUresult rc_ = KL_DRV(name) args;                                            \
        if (rc_ != CUDA_SUCCESS)                                                     \
            return kl_fail_cu((e), (status), rc_, #name #args, __FILE__, __LINE__);  \
    } while (0)

/* The entry points that reach the driver first: KL_NO_DRIVER with kl_driver_error()
 * when it cannot be loaded. */
int kl_need_driver(struct kl_error *e);

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

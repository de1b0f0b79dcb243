/* src/costmodel/internal.h — what the cost model's files share. Module-internal; the
 * public interface is costmodel.h. */
#ifndef CROQ_COSTMODEL_INTERNAL_H
#define CROQ_COSTMODEL_INTERNAL_H
#include "costmodel.h"

int cm_n_onehot(void); /* the one-hot features: the sum of the knobs' value counts */
#endif

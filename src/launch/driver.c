/* src/launch/driver.c — dlopen the CUDA driver once and resolve the table (driver.h). */
#include "driver.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define KL_STR(x) #x
/* The argument is expanded first, so this is the symbol cuda.h maps a name to. */
#define KL_SYMBOL(name) KL_STR(name)

int kl_driver_open(const char *soname, struct kl_driver *d, char *err, size_t len)
{
    memset(d, 0, sizeof *d);
    void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        snprintf(err, len, "cannot load the CUDA driver: %s (no NVIDIA driver installed, or not on the "
                 "loader's path)", why ? why : soname);
        return -1;
    }
    const char *missing = NULL;
    /* memcpy: ISO C has no conversion from dlsym's void * to a function pointer. */
#define KL_DRIVER_RESOLVE(name)                                   \
    if (!missing) {                                               \
        void *sym = dlsym(lib, KL_SYMBOL(name));                  \
        if (sym)                                                  \
            memcpy(&d->name, &sym, sizeof sym);                   \
        else                                                      \
            missing = KL_SYMBOL(name);                            \
    }
    KL_DRIVER_ENTRIES(KL_DRIVER_RESOLVE)
#undef KL_DRIVER_RESOLVE
    if (missing) {
        snprintf(err, len, "cannot load the CUDA driver: %s has no %s (a driver older than CUDA 12.0?)", soname,
                 missing);
        dlclose(lib);
        memset(d, 0, sizeof *d);
        return -1;
    }
    return 0;
}

static struct kl_driver table;
static const struct kl_driver *loaded;
static char load_error[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
    if (kl_driver_open(KL_DRIVER_SONAME, &table, load_error, sizeof load_error) == 0)
        loaded = &table;
}

const struct kl_driver *kl_driver(void)
{
    pthread_once(&once, load);
    return loaded;
}

const char *kl_driver_error(void)
{
    pthread_once(&once, load);
    return load_error;
}

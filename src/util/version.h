/* src/util/version.h — what the binaries are: written at build time by
 * cmake/version.cmake into the build directory (version_info.c).
 *
 * croq_version: the project version (CMakeLists.txt project()); croq_commit: git
 * describe of the source tree at build time (12-hex commit, "-dirty" when it had
 * uncommitted changes, "unknown" outside a git checkout); croq_cuda_version: the CUDA
 * toolkit the binaries were built with ("13.0.88"). Constant strings; thread-safe.
 */
#ifndef CROQ_UTIL_VERSION_H
#define CROQ_UTIL_VERSION_H

extern const char croq_version[];
extern const char croq_commit[];
extern const char croq_cuda_version[];

#endif

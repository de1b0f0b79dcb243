/* tests/unit/test_build.c — ptxas report and SASS parsers on real tool output, and
 * build_compile end to end with the real nvcc (cache hit, errors, time limit, the module
 * identity it injects), and with stand-in compilers: a poisoned cache entry refused, a
 * compiler that ignores the identity header refused, two builds racing for one output
 * path (issue 22). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "build/nvcc.h"
#include "util/atomicio.h"
#include "util/spawn.h"

/* ptxas -v output of nvcc 13.0 for a cubin with three entry functions, one of which
 * uses local memory (copied from a real run). */
static const char ptxas_log[] =
    "ptxas warning : Local memory used for function 'dense', size of stack frame: 1200 bytes\n"
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function 'spfp8' for 'sm_90a'\n"
    "ptxas info    : Function properties for spfp8\n"
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 31 registers, used 0 barriers\n"
    "ptxas info    : Compile time = 25.248 ms\n"
    "ptxas info    : Compiling entry function 'dense' for 'sm_90a'\n"
    "ptxas info    : Function properties for dense\n"
    "    1200 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 40 registers, used 0 barriers, 1200 bytes cumulative stack size\n"
    "ptxas info    : Compile time = 207.991 ms\n"
    "ptxas info    : Compiling entry function 'croq_gemm_sp' for 'sm_90a'\n"
    "ptxas info    : Function properties for croq_gemm_sp\n"
    "    0 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
    "ptxas info    : Used 168 registers, used 1 barriers, 2048 bytes smem, 928 bytes cmem[0]\n";

/* cuobjdump -sass excerpt (cuobjdump 13.5, sm_90a). */
static const char sass_text[] =
    "\tcode for sm_90a\n"
    "\t\tFunction : spfp8\n"
    "        /*00f0*/                   QGMMA.SP.64x8x64.F32.E4M3.E4M3 R24, gdesc[UR8], R24, R28, gsb0 ;  /* 0x04001c00081879f3 */\n"
    "\t\tFunction : dense\n"
    "        /*d050*/                   QGMMA.64x8x32.F32.E4M3.E4M3 R24, gdesc[UR28], R24, gsb0 ;         /* 0x000000001c1879f3 */\n"
    "        /*d060*/              @!P0 HGMMA.SP.64x128x32.F32 R24, gdesc[UR8], R24, R88, 0x0, gsb0 ;     /* 0x09e05800081879f0 */\n"
    "        /*d070*/                   HGMMA.SP.64x128x32.F32 R24, gdesc[UR8], R24, R88, 0x0, gsb0 ;     /* 0x09e05800081879f0 */\n"
    "        /*d080*/                   HMMA.16816.F32 R4, R8, R12, R4 ;  /* 0x0 */\n"
    "        /*d090*/                   EXIT ;  /* 0x0 */\n";

static void test_parse_ptxas(void **state)
{
    struct build_ptxas p;
    build_parse_ptxas(ptxas_log, "croq_gemm_sp", &p);
    assert_true(p.parsed);
    assert_string_equal(p.function, "croq_gemm_sp");
    assert_int_equal(p.registers, 168);
    assert_int_equal(p.spill_store_bytes, 8);
    assert_int_equal(p.spill_load_bytes, 12);
    assert_int_equal(p.stack_frame_bytes, 0);
    assert_int_equal(p.smem_bytes, 2048);
    assert_int_equal(p.barriers, 1);
    assert_true(p.local_memory_warning);
    assert_true(p.spills);

    /* No croq_gemm_sp: the first entry; spills still flagged from 'dense'. */
    build_parse_ptxas(ptxas_log, "nope", &p);
    assert_string_equal(p.function, "spfp8");
    assert_int_equal(p.registers, 31);
    assert_int_equal(p.smem_bytes, 0);
    assert_true(p.spills);

    build_parse_ptxas("ptxas info    : Compiling entry function 'k' for 'sm_90a'\n"
                      "ptxas info    : Function properties for k\n"
                      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
                      "ptxas info    : Used 90 registers, used 1 barriers, 16 bytes smem\n",
                      "k", &p);
    assert_int_equal(p.registers, 90);
    assert_false(p.spills);
    assert_false(p.local_memory_warning);
    assert_false(p.wgmma_serialized);

    /* The ptxas line seen on the H200 project (2026-11-29) when metadata registers were
     * rewritten by an ALU instruction under in-flight wgmmas. */
    build_parse_ptxas("ptxas info    : (C7515) Potential Performance Loss: wgmma.mma_async instructions are "
                      "serialized due to non wgmma instructions defining accumulator registers of a wgmma "
                      "between start and end of the pipeline stage in the function 'k'\n"
                      "ptxas info    : Compiling entry function 'k' for 'sm_90a'\n",
                      "k", &p);
    assert_true(p.wgmma_serialized);

    build_parse_ptxas("", "k", &p);
    assert_false(p.parsed);
    assert_int_equal(p.registers, -1);
}

static void test_scan_sass(void **state)
{
    struct build_sass s;
    build_scan_sass(sass_text, &s);
    assert_true(s.checked);
    assert_true(s.has_gmma);
    assert_true(s.has_sparse_gmma);
    assert_int_equal(s.gmma_count, 4);
    assert_int_equal(s.sparse_gmma_count, 3);
    assert_true(s.has_hmma);
    assert_string_equal(s.mnemonics,
                        "QGMMA.SP.64x8x64.F32.E4M3.E4M3 QGMMA.64x8x32.F32.E4M3.E4M3 HGMMA.SP.64x128x32.F32");

    build_scan_sass("        /*0010*/   QGMMA.64x8x32.F32.E4M3.E4M3 R24, gdesc[UR28], R24, gsb0 ;\n"
                    "        /*0020*/   MOV R1, c[0x0][0x28] ;\n"
                    "   SPGMMA is not an instruction line\n",
                    &s);
    assert_true(s.has_gmma);
    assert_false(s.has_sparse_gmma);
    assert_false(s.has_hmma);
    assert_int_equal(s.gmma_count, 1);
}

/* ---- with the real compiler ---- */

static char tmpdir[256];

static int setup(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/croq-test-build.XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    const char *argv[] = {"rm", "-rf", tmpdir, NULL};
    struct spawn_opts o = {.argv = argv};
    struct spawn_result r;
    int rc = spawn_run(&o, &r);
    spawn_result_release(&r);
    return rc;
}

static bool have_nvcc(void)
{
    const char *e = getenv("CROQ_NVCC");
    const char *argv[] = {e && *e ? e : CROQ_NVCC_DEFAULT, "--version", NULL};
    struct spawn_opts o = {.argv = argv, .timeout_s = 60};
    struct spawn_result r;
    bool ok = spawn_run(&o, &r) == 0 && r.exit_code == 0;
    spawn_result_release(&r);
    return ok;
}

/* One sparse f16 wgmma (m64n8k32) in the entry function, so the SASS must show
 * HGMMA.SP; WIDTH selects the number of accumulators through -D. */
static const char tiny_kernel[] =
    "#include <stdint.h>\n"
    "#ifndef WIDTH\n#define WIDTH 4\n#endif\n"
    "extern \"C\" __global__ void __launch_bounds__(128) croq_gemm_sp(const float *in, float *out,\n"
    "                                                   uint64_t da, uint64_t db, uint32_t meta)\n"
    "{\n"
    "    float d[4];\n"
    "    for (int i = 0; i < 4; i++) d[i] = in[i];\n"
    "    asm volatile(\"wgmma.fence.sync.aligned;\\n\" ::: \"memory\");\n"
    "    asm volatile(\"{\\n.reg .pred p;\\nsetp.ne.b32 p, 1, 0;\\n\"\n"
    "        \"wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%0,%1,%2,%3}, %4, %5, %6, 0, p, 1, 1, 0, 0;\\n}\\n\"\n"
    "        : \"+f\"(d[0]), \"+f\"(d[1]), \"+f\"(d[2]), \"+f\"(d[3]) : \"l\"(da), \"l\"(db), \"r\"(meta));\n"
    "    asm volatile(\"wgmma.commit_group.sync.aligned;\\n\" ::: \"memory\");\n"
    "    asm volatile(\"wgmma.wait_group.sync.aligned 0;\\n\" ::: \"memory\");\n"
    "    for (int i = 0; i < WIDTH; i++) out[threadIdx.x * 4 + i] = d[i % 4];\n"
    "}\n";

static void test_compile_and_cache(void **state)
{
    if (!have_nvcc())
        skip();
    char src[300], cache[300], out[300];
    snprintf(src, sizeof src, "%s/tiny.cu", tmpdir);
    snprintf(cache, sizeof cache, "%s/cache", tmpdir);
    snprintf(out, sizeof out, "%s/out", tmpdir);
    assert_int_equal(mkdir_p(out), 0);
    assert_int_equal(atomic_write_str(src, tiny_kernel), 0);
    struct build_opts o = {.out_dir = out, .cache_dir = cache, .timeout_s = 300};
    struct build_result r;
    if (build_compile(src, &o, &r))
        fail_msg("compile failed: %s", r.error);
    assert_true(r.ok);
    assert_false(r.cache_hit);
    char cubin[320];
    snprintf(cubin, sizeof cubin, "%s/tiny.cubin", out);
    assert_string_equal(r.cubin_path, cubin);
    struct stat st;
    assert_int_equal(stat(cubin, &st), 0);
    assert_true(st.st_size > 1000);
    assert_true(r.compile_s > 0);
    /* the identity nvcc was given (-include croq_module_id.h) is in the cubin, once */
    size_t len;
    char *bytes = read_file(cubin, &len), id[17];
    assert_non_null(bytes);
    assert_int_equal(build_module_id_scan(bytes, len, id), 1);
    assert_string_equal(id, r.key);
    assert_string_equal(r.module_id, r.key);
    free(bytes);
    assert_true(r.ptxas.parsed);
    assert_string_equal(r.ptxas.function, "croq_gemm_sp");
    assert_true(r.ptxas.registers > 0);
    assert_int_equal(r.ptxas.spill_store_bytes, 0);
    assert_false(r.ptxas.spills);
    /* With cuobjdump at hand (setup-deps.sh puts it in .deps) the SASS must be checked. */
    const char *env = getenv("CROQ_CUOBJDUMP");
    if ((env && *env) || access(CROQ_SOURCE_DIR "/.deps/pip/nvidia/cu13/bin/cuobjdump", X_OK) == 0)
        assert_true(r.sass.checked);
    if (r.sass.checked) {
        assert_true(r.sass.has_sparse_gmma);
        assert_string_equal(r.sass.mnemonics, "HGMMA.SP.64x8x32.F32");
    } else {
        print_message("SASS not checked: %s\n", r.sass.note);
    }
    char key[17];
    memcpy(key, r.key, sizeof key);
    int regs = r.ptxas.registers;
    build_result_release(&r);

    /* Same source and flags: a hit that restores the record without nvcc. */
    unlink(cubin);
    assert_int_equal(build_compile(src, &o, &r), 0);
    assert_true(r.cache_hit);
    assert_string_equal(r.key, key);
    assert_string_equal(r.module_id, key);
    assert_int_equal(r.ptxas.registers, regs);
    assert_int_equal(r.compile_s, 0);
    assert_int_equal(stat(cubin, &st), 0);
    assert_non_null(strstr(r.log, "croq_gemm_sp"));
    json_t *j = build_result_json(&r, false);
    assert_true(json_is_true(json_object_get(j, "cache_hit")));
    assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "ptxas"), "registers")), regs);
    assert_null(json_object_get(j, "log"));
    json_decref(j);
    build_result_release(&r);

    /* A -D changes the key: compiled again. */
    const char *defs[] = {"WIDTH=2", NULL};
    o.defines = defs;
    assert_int_equal(build_compile(src, &o, &r), 0);
    assert_false(r.cache_hit);
    assert_string_not_equal(r.key, key);
    build_result_release(&r);
}

static void test_compile_error_carries_message(void **state)
{
    if (!have_nvcc())
        skip();
    char src[300];
    snprintf(src, sizeof src, "%s/broken.cu", tmpdir);
    assert_int_equal(atomic_write_str(src, "__global__ void k() { undeclared_thing = 1; }\n"), 0);
    struct build_opts o = {.cache_dir = ""};
    struct build_result r;
    assert_int_equal(build_compile(src, &o, &r), -1);
    assert_false(r.ok);
    assert_non_null(strstr(r.error, "nvcc failed on '"));
    assert_non_null(strstr(r.error, "undeclared_thing"));
    char cubin[320];
    snprintf(cubin, sizeof cubin, "%s/broken.cubin", tmpdir);
    assert_int_equal(access(cubin, F_OK), -1);
    build_result_release(&r);
}

static void test_time_limit_and_missing_tools(void **state)
{
    char fake[300], src[300];
    snprintf(fake, sizeof fake, "%s/fake-nvcc", tmpdir);
    snprintf(src, sizeof src, "%s/slow.cu", tmpdir);
    /* Answers --version at once, then "compiles" forever. */
    assert_int_equal(atomic_write_str(fake, "#!/bin/sh\n[ \"$1\" = --version ] && { echo fake 1.0; exit 0; }\n"
                                            "exec sleep 100\n"), 0);
    assert_int_equal(chmod(fake, 0755), 0);
    assert_int_equal(atomic_write_str(src, "// slow\n"), 0);
    struct build_opts o = {.nvcc = fake, .cache_dir = "", .timeout_s = 0.5};
    struct build_result r;
    assert_int_equal(build_compile(src, &o, &r), -1);
    assert_non_null(strstr(r.error, "timed out after 0.5 s"));
    build_result_release(&r);

    o.nvcc = "/nonexistent/nvcc";
    assert_int_equal(build_compile(src, &o, &r), -1);
    assert_non_null(strstr(r.error, "cannot run nvcc '/nonexistent/nvcc'"));
    build_result_release(&r);

    char missing[300];
    snprintf(missing, sizeof missing, "%s/missing.cu", tmpdir);
    assert_int_equal(build_compile(missing, &o, &r), -1);
    assert_non_null(strstr(r.error, "cannot read '"));
    assert_non_null(strstr(r.error, "No such file or directory"));
    build_result_release(&r);

    const char *bad[] = {"-rf", NULL};
    o.nvcc = fake;
    o.defines = bad;
    assert_int_equal(build_compile(src, &o, &r), -1);
    assert_string_equal(r.error, "bad definition '-rf' (expected NAME or NAME=VALUE)");
    build_result_release(&r);
}


/* The compile-ahead handshake (notify_fd): the caller is told at once when another build
 * holds the cache key, not when that build ends, and the build then waits for it and finds
 * its cache entry. (Told only once the key was its own, the engine waited for a compile of
 * the iteration before while the GPU idled: bench/overhead.sh.) */
static void test_notify_when_key_held(void **state)
{
    char fake[300], src[300], cache[300], out[300], lock[340];
    snprintf(fake, sizeof fake, "%s/fake-nvcc-notify", tmpdir);
    snprintf(src, sizeof src, "%s/notify.cu", tmpdir);
    snprintf(cache, sizeof cache, "%s/cache-notify", tmpdir);
    snprintf(out, sizeof out, "%s/out-notify", tmpdir);
    assert_int_equal(atomic_write_str(fake, "#!/bin/sh\n[ \"$1\" = --version ] && { echo fake 2.0; exit 0; }\n"
                                            "{ echo cubin; cat croq_module_id.h; } > kernel.cubin\n"), 0);
    assert_int_equal(chmod(fake, 0755), 0);
    assert_int_equal(atomic_write_str(src, "// notify\n"), 0);
    assert_int_equal(mkdir_p(out), 0);
    struct build_opts o = {.nvcc = fake, .cache_dir = cache, .out_dir = out, .no_sass = true, .timeout_s = 30};
    struct build_result r;
    assert_int_equal(build_compile(src, &o, &r), 0);
    assert_false(r.cache_hit);
    snprintf(lock, sizeof lock, "%s/%s.lock", cache, r.key);
    build_result_release(&r);

    int held = open(lock, O_RDWR), fds[2];
    assert_true(held >= 0);
    assert_int_equal(flock(held, LOCK_EX), 0); /* "another build" of the same source */
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        close(held); /* the lock stays with the parent's descriptor */
        o.notify_fd = fds[1];
        struct build_result c;
        _exit(build_compile(src, &o, &c) == 0 && c.cache_hit ? 0 : 1);
    }
    close(fds[1]);
    struct pollfd p = {.fd = fds[0], .events = POLLIN};
    char byte = 0;
    assert_int_equal(poll(&p, 1, 5000), 1); /* told while the key is still held */
    assert_int_equal(read(fds[0], &byte, 1), 1);
    assert_int_equal(byte, '1');
    int status;
    usleep(100 * 1000);
    assert_int_equal(waitpid(pid, &status, WNOHANG), 0); /* still waiting for the key */
    close(held); /* the other build ends */
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0); /* then a hit of that build's entry */
    assert_int_equal(read(fds[0], &byte, 1), 0); /* told once */
    close(fds[0]);
}

/* The metadata-register hazard the H200 exposed (docs/kernels.md): ptxas loaded the next
 * stage's words into R152/R153 at the top of the loop while the group reading them was
 * still in flight (DEPBAR.LE 1 leaves it pending). SASS shaped like that build's. */
static const char sass_hazard[] =
    "\t\tFunction : croq_gemm_sp\n"
    "        /*0d00*/                   LDG.E.CONSTANT R152, desc[UR10][R2.64] ;  /* 0x0 */\n"
    "        /*0d10*/                   LDG.E.CONSTANT R153, desc[UR10][R2.64+0x200] ;  /* 0x0 */\n"
    "        /*0e50*/                   SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [R10+UR8+0x28000], R5 ;  /* 0x0 */\n"
    "        /*0f10*/                   WARPGROUP.ARRIVE ;  /* 0x0 */\n"
    "        /*0f70*/                   HGMMA.SP.64x256x32.F32 R24, gdesc[UR16], R24, R152, 0x0 ;  /* 0x0 */\n"
    "        /*1140*/                   HGMMA.SP.64x256x32.F32 R24, gdesc[UR16], R24, R152, 0x1 ;  /* 0x0 */\n"
    "        /*11d0*/                   HGMMA.SP.64x256x32.F32 R24, gdesc[UR16], R24, R153, 0x0 ;  /* 0x0 */\n"
    "        /*12a0*/                   HGMMA.SP.64x256x32.F32 R24, gdesc[UR16], R24, R153, 0x1, gsb0 ;  /* 0x0 */\n"
    "        /*12b0*/                   WARPGROUP.DEPBAR.LE gsb0, 0x1 ;  /* 0x0 */\n"
    "        /*12c0*/              @!P0 SYNCS.ARRIVE.TRANS64.A1T0 RZ, [R3+URZ+0x28010], RZ ;  /* 0x0 */\n"
    "        /*12e0*/              @!P1 BRA 0xd00 ;  /* 0x0 */\n"
    "        /*1320*/                   WARPGROUP.DEPBAR.LE gsb0, 0x0 ;  /* 0x0 */\n"
    "        /*1330*/                   MOV R152, RZ ;  /* 0x0 */\n";

/* The fixed kernel: stages alternate R154/R155 and R152/R153, and each buffer is stored
 * (STS) after the DEPBAR that retires its group, before it is loaded again. */
static const char sass_fixed[] =
    "\t\tFunction : croq_gemm_sp\n"
    "        /*0dd0*/                   LDG.E.CONSTANT R154, desc[UR10][R8.64] ;  /* 0x0 */\n"
    "        /*0df0*/                   LDG.E.CONSTANT R155, desc[UR10][R8.64+0x200] ;  /* 0x0 */\n"
    "        /*0f70*/                   HGMMA.SP.64x256x32.F32 R24, gdesc[UR16], R24, R154, 0x0 ;  /* 0x0 */\n"
    "        /*1250*/                   HGMMA.SP.64x256x32.F32 R24, gdesc[UR16], R24, R155, 0x1, gsb0 ;  /* 0x0 */\n"
    "        /*1340*/                   WARPGROUP.DEPBAR.LE gsb0, 0x1 ;  /* 0x0 */\n"
    "        /*1350*/                   STS [R10+UR6+0x28030], R152 ;  /* 0x0 */\n"
    "        /*1370*/                   LDG.E.CONSTANT R153, desc[UR10][R8.64] ;  /* 0x0 */\n"
    "        /*1380*/                   LDG.E.CONSTANT R152, desc[UR10][R8.64+0x200] ;  /* 0x0 */\n"
    "        /*1550*/                   HGMMA.SP.64x256x32.F32 R24, gdesc[UR16], R24, R153, 0x0 ;  /* 0x0 */\n"
    "        /*16a0*/                   HGMMA.SP.64x256x32.F32 R24, gdesc[UR16], R24, R152, 0x1, gsb0 ;  /* 0x0 */\n"
    "        /*16b0*/                   WARPGROUP.DEPBAR.LE gsb0, 0x1 ;  /* 0x0 */\n"
    "        /*16c0*/                   STS [R10+UR6+0x28030], R154 ;  /* 0x0 */\n"
    "        /*16e0*/              @!P1 BRA 0xdd0 ;  /* 0x0 */\n"
    "        /*1700*/                   WARPGROUP.DEPBAR.LE gsb0, 0x0 ;  /* 0x0 */\n";

static void test_meta_hazard(void **state)
{
    char where[256] = "";
    assert_true(build_sass_meta_hazard(sass_hazard, where, sizeof where));
    assert_non_null(strstr(where, "/*0d00*/ LDG.E.CONSTANT"));
    assert_non_null(strstr(where, "R152"));
    where[0] = '\0';
    assert_false(build_sass_meta_hazard(sass_fixed, where, sizeof where));
    assert_string_equal(where, "");
    /* a straight-line rewrite before the retiring DEPBAR is caught too */
    static const char straight[] =
        "        /*0010*/                   QGMMA.SP.64x256x64.F32.E4M3.E4M3 R24, gdesc[UR20], R24, R12, gsb0 ;\n"
        "        /*0020*/                   IADD3 R12, R12, 0x1, RZ ;\n"
        "        /*0030*/                   WARPGROUP.DEPBAR.LE gsb0, 0x0 ;\n";
    assert_true(build_sass_meta_hazard(straight, where, sizeof where));
    assert_non_null(strstr(where, "IADD3"));
}


/* ---- the module identity, with stand-in compilers ---- */

static void test_module_id_scan(void **state)
{
    (void)state;
    char id[17] = "x";
    static const char one[] = "\177ELF....croq-module-id:0123456789abcdef\0tail";
    assert_int_equal(build_module_id_scan(one, sizeof one, id), 1);
    assert_string_equal(id, "0123456789abcdef");
    static const char quoted[] = "extern \"C\" __device__ const char croq_module_id[32] = \"croq-module-id:fedcba9876543210\";";
    assert_int_equal(build_module_id_scan(quoted, sizeof quoted - 1, id), 1);
    assert_string_equal(id, "fedcba9876543210");
    assert_int_equal(build_module_id_scan("\177ELF no id here", 15, id), 0);
    assert_string_equal(id, "");
    assert_int_equal(build_module_id_scan(NULL, 0, id), 0);
    static const char two[] = "croq-module-id:0123456789abcdef\0croq-module-id:0123456789abcdef";
    assert_int_equal(build_module_id_scan(two, sizeof two, id), -1); /* twice, even the same: refused */
    assert_string_equal(id, "");
    static const char *const bad[] = {"croq-module-id:0123456789abcde\0", "croq-module-id:0123456789abcdef0",
                                      "croq-module-id:0123456789ABCDEF", "croq-module-id:"};
    for (int i = 0; i < 4; i++)
        assert_int_equal(build_module_id_scan(bad[i], strlen(bad[i]) + 1, id), -1);
    /* the marker at the very end of the bytes, no terminator */
    assert_int_equal(build_module_id_scan(one + 8, 31, id), 1);
    assert_string_equal(id, "0123456789abcdef");
}

/* A stand-in nvcc whose "cubin" is the source text followed by the identity header (as a
 * real cubin holds the constant); it sleeps the seconds a "// delay S" line of the source
 * asks for. */
static void write_standin_nvcc(const char *path, const char *version)
{
    char text[1024];
    snprintf(text, sizeof text,
             "#!/bin/sh\n[ \"$1\" = --version ] && { echo %s; exit 0; }\n"
             "d=$(sed -n 's,^// delay ,,p' kernel.cu); sleep ${d:-0}\n"
             "{ echo STANDIN; cat kernel.cu; cat croq_module_id.h 2>/dev/null || true; } > kernel.cubin\n", version);
    assert_int_equal(atomic_write_str(path, text), 0);
    assert_int_equal(chmod(path, 0755), 0);
}

static bool file_has(const char *path, const char *what)
{
    char *text = read_file(path, NULL);
    bool has = text && strstr(text, what);
    free(text);
    return has;
}

/* Run build_compile with stderr to a file; what it printed (malloc'd). */
static char *build_stderr(const char *src, const struct build_opts *o, struct build_result *r, int *rc)
{
    char path[] = "/tmp/croq-test-build-err.XXXXXX";
    int fd = mkstemp(path), saved = dup(2);
    assert_true(fd >= 0 && saved >= 0);
    fflush(stderr);
    dup2(fd, 2);
    *rc = build_compile(src, o, r);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    close(fd);
    char *text = read_file(path, NULL);
    unlink(path);
    return text;
}

/* Another source's module copied over a cache entry (what the race of issue 22 left in
 * users' caches): the hit is refused, the entry purged with a warning naming both ids,
 * the source compiled afresh, and the entry holds its own module again. */
static void test_poisoned_cache_entry_refused(void **state)
{
    (void)state;
    char nvcc[300], one[300], two[300], cache[300], out[300], from[400], to[400];
    snprintf(nvcc, sizeof nvcc, "%s/nvcc-poison", tmpdir);
    snprintf(one, sizeof one, "%s/one.cu", tmpdir);
    snprintf(two, sizeof two, "%s/two.cu", tmpdir);
    snprintf(cache, sizeof cache, "%s/cache-poison", tmpdir);
    snprintf(out, sizeof out, "%s/out-poison", tmpdir);
    write_standin_nvcc(nvcc, "stand-in poison 1.0");
    assert_int_equal(atomic_write_str(one, "// source one\n"), 0);
    assert_int_equal(atomic_write_str(two, "// source two\n"), 0);
    assert_int_equal(mkdir_p(out), 0);
    struct build_opts o = {.nvcc = nvcc, .cache_dir = cache, .out_dir = out, .no_sass = true, .timeout_s = 30};
    struct build_result r;
    char key1[17], key2[17];
    assert_int_equal(build_compile(one, &o, &r), 0);
    snprintf(key1, sizeof key1, "%s", r.key);
    build_result_release(&r);
    assert_int_equal(build_compile(two, &o, &r), 0);
    snprintf(key2, sizeof key2, "%s", r.key);
    build_result_release(&r);
    assert_string_not_equal(key1, key2);
    snprintf(from, sizeof from, "%s/%s.cubin", cache, key2);
    snprintf(to, sizeof to, "%s/%s.cubin", cache, key1);
    assert_int_equal(atomic_copy(from, to), 0); /* key1's entry now holds source two's module */

    int rc;
    char *err = build_stderr(one, &o, &r, &rc);
    assert_int_equal(rc, 0);
    assert_true(r.ok);
    assert_false(r.cache_hit); /* refused, compiled afresh */
    assert_string_equal(r.module_id, key1);
    assert_non_null(err);
    assert_non_null(strstr(err, key1));
    assert_non_null(strstr(err, key2));
    assert_non_null(strstr(err, "the entry is removed"));
    free(err);
    char cubin[400];
    snprintf(cubin, sizeof cubin, "%s/one.cubin", out);
    assert_true(file_has(cubin, "// source one") && !file_has(cubin, "// source two"));
    assert_true(file_has(to, "// source one") && !file_has(to, "// source two")); /* the entry is right again */
    build_result_release(&r);
    err = build_stderr(one, &o, &r, &rc); /* and now a plain hit */
    assert_int_equal(rc, 0);
    assert_true(r.cache_hit);
    assert_string_equal(err, "");
    free(err);
    build_result_release(&r);

    /* an entry whose cubin carries no id at all (written before identities existed) */
    assert_int_equal(atomic_write_str(to, "old cubin"), 0);
    err = build_stderr(one, &o, &r, &rc);
    assert_int_equal(rc, 0);
    assert_false(r.cache_hit);
    assert_non_null(strstr(err, "no module id"));
    free(err);
    build_result_release(&r);

    /* build_cache_purge removes an entry */
    char rec[400];
    snprintf(rec, sizeof rec, "%s/%s.json", cache, key1);
    assert_int_equal(build_cache_purge(&o, key1), 0);
    assert_int_equal(access(rec, F_OK), -1);
    assert_int_equal(access(to, F_OK), -1);
    assert_int_equal(build_cache_purge(&o, key1), 0); /* nothing there: fine */
}

/* A compiler that ignores -include croq_module_id.h makes cubins without the identity: the
 * build fails loudly, as the toolchain's fault, and caches nothing. */
static void test_compiler_without_identity_refused(void **state)
{
    (void)state;
    char nvcc[300], src[300], cache[300], rec[400];
    snprintf(nvcc, sizeof nvcc, "%s/nvcc-noid", tmpdir);
    snprintf(src, sizeof src, "%s/noid.cu", tmpdir);
    snprintf(cache, sizeof cache, "%s/cache-noid", tmpdir);
    assert_int_equal(atomic_write_str(nvcc, "#!/bin/sh\n[ \"$1\" = --version ] && { echo noid 1.0; exit 0; }\n"
                                            "echo cubin > kernel.cubin\n"), 0);
    assert_int_equal(chmod(nvcc, 0755), 0);
    assert_int_equal(atomic_write_str(src, "// no id\n"), 0);
    struct build_opts o = {.nvcc = nvcc, .cache_dir = cache, .no_sass = true, .timeout_s = 30};
    struct build_result r;
    assert_int_equal(build_compile(src, &o, &r), -1);
    assert_false(r.ok);
    assert_true(r.toolchain_failed);
    assert_non_null(strstr(r.error, "carries no module id"));
    assert_non_null(strstr(r.error, "-include croq_module_id.h"));
    assert_string_equal(r.module_id, "");
    snprintf(rec, sizeof rec, "%s/%s.json", cache, r.key);
    assert_int_equal(access(rec, F_OK), -1);
    char cubin[320];
    snprintf(cubin, sizeof cubin, "%s/noid.cubin", tmpdir);
    assert_int_equal(access(cubin, F_OK), -1); /* no output either */
    build_result_release(&r);
}

/* Issue 22's race at the build level: two compile-ahead guesses of one iteration, of
 * different sources, built into one output path (build/<key>/spec/iterNNN.cubin before the
 * fix). Build A's SASS check takes a while (cuobjdump stand-in: 1.5 s); build B's compile
 * ends while it runs and writes the shared path. The cache entry of A's key must hold A's
 * module: a later build of A's source hits the cache and gets A, not B. (Before the fix the
 * SASS check and the cache store read the shared path: A's key was filed with B's
 * module.) */
static void test_race_for_one_output_path(void **state)
{
    (void)state;
    char nvcc[300], tool[300], a[340], b[340], da[300], db[300], cache[300], out[300], cubin[400];
    snprintf(nvcc, sizeof nvcc, "%s/nvcc-race", tmpdir);
    snprintf(tool, sizeof tool, "%s/cuobjdump-race", tmpdir);
    snprintf(da, sizeof da, "%s/race-a", tmpdir);
    snprintf(db, sizeof db, "%s/race-b", tmpdir);
    snprintf(a, sizeof a, "%s/iter005.cu", da);
    snprintf(b, sizeof b, "%s/iter005.cu", db);
    snprintf(cache, sizeof cache, "%s/cache-race", tmpdir);
    snprintf(out, sizeof out, "%s/spec", tmpdir);
    write_standin_nvcc(nvcc, "stand-in race 1.0");
    assert_int_equal(atomic_write_str(tool, "#!/bin/sh\nsleep 1.5\n"
                                            "echo '        /*0100*/   HGMMA.SP.64x128x32.F32 R24, gdesc[UR4], RZ, R2, 0x0 ;'\n"), 0);
    assert_int_equal(chmod(tool, 0755), 0);
    assert_int_equal(mkdir_p(da), 0);
    assert_int_equal(mkdir_p(db), 0);
    assert_int_equal(mkdir_p(out), 0);
    assert_int_equal(atomic_write_str(a, "// delay 0\n// guess A\n"), 0);
    assert_int_equal(atomic_write_str(b, "// delay 0.5\n// guess B\n"), 0);
    setenv("CROQ_CUOBJDUMP", tool, 1);
    struct build_opts o = {.nvcc = nvcc, .cache_dir = cache, .out_dir = out, .timeout_s = 30};
    pid_t kids[2];
    const char *srcs[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        kids[i] = fork();
        assert_true(kids[i] >= 0);
        if (kids[i] == 0) {
            struct build_result c;
            _exit(build_compile(srcs[i], &o, &c) == 0 && c.sass.checked ? 0 : 1);
        }
    }
    for (int i = 0; i < 2; i++) {
        int status;
        assert_int_equal(waitpid(kids[i], &status, 0), kids[i]);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    struct build_result r;
    snprintf(cubin, sizeof cubin, "%s/iter005.cubin", out);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(build_compile(srcs[i], &o, &r), 0);
        assert_true(r.cache_hit); /* each entry is its own source's: a hit, nothing purged */
        assert_true(file_has(cubin, i ? "// guess B" : "// guess A"));
        assert_false(file_has(cubin, i ? "// guess A" : "// guess B"));
        build_result_release(&r);
    }
    unsetenv("CROQ_CUOBJDUMP");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_ptxas),
        cmocka_unit_test(test_meta_hazard),
        cmocka_unit_test(test_scan_sass),
        cmocka_unit_test(test_compile_and_cache),
        cmocka_unit_test(test_compile_error_carries_message),
        cmocka_unit_test(test_time_limit_and_missing_tools),
        cmocka_unit_test(test_notify_when_key_held),
        cmocka_unit_test(test_module_id_scan),
        cmocka_unit_test(test_poisoned_cache_entry_refused),
        cmocka_unit_test(test_compiler_without_identity_refused),
        cmocka_unit_test(test_race_for_one_output_path),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

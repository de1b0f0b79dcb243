/* kernels/parts/schedule_pingpong.cuh — the consumer schedule of family.cu for schedule=1
 * (persistent, two consumers): consumer c owns whole items, c, c+2, ... of the CTA's list,
 * so one consumer's epilogue runs while the other's mainloop issues wgmmas; the mainloops
 * take turns by two named barriers. Contract: kernels/parts/schedule_cooperative.cuh.
 *
 * Turns: consumer c waits on barrier 4 + c before its mainloop (except the CTA's first
 * tile), and the other consumer arrives on it once it has issued the previous tile's
 * mainloop. Each wait is matched by exactly one arrival: an arrival is made only when the
 * next item of the list exists, and items alternate between the two consumers, so no
 * barrier ever has a second generation pending or one left open at exit.
 */
static_assert(CROQ_CONSUMERS == 2 && CROQ_PERSISTENT && CROQ_SPLIT_K == 1,
              "ping-pong needs two consumers, persistent=1 and split_k=1");

constexpr bool schedule_alternates = true;

__device__ __forceinline__ void turn_wait(int c)
{
    asm volatile("bar.sync %0, 256;" ::"r"(4 + c) : "memory");
}

__device__ __forceinline__ void turn_pass(int to)
{
    asm volatile("bar.arrive %0, 256;" ::"r"(4 + to) : "memory");
}

__device__ __forceinline__ bool schedule_take(const croq_gemm_args &, int iter, int c, const work &w, int &it)
{
    if (iter % 2 != c) { /* the other consumer's tile: its stages pass this one by */
        it += w.k_tiles;
        return false;
    }
    if (iter > 0)
        turn_wait(c);
    return true;
}

__device__ __forceinline__ void schedule_issued(const croq_gemm_args &args, int iter, int c)
{
    work next;
    if (next_work(args, iter + 1, &next)) /* its wgmmas may issue while ours finish */
        turn_pass(1 - c);
}

/* kernels/parts/scheduler.cuh — what every tile scheduler of family.cu hands out, and the
 * one mapping from a unit of tiles to this CTA's tile.
 *
 * Contract of a scheduler (scheduler_tile.cuh, scheduler_persistent.cuh,
 * scheduler_streamk.cuh; family.cu includes exactly one after this file):
 *   bool next_work(args, iter, &w)   work item iter (0, 1, ...) of this CTA, false past
 *                                    the last. Every thread of the CTA calls it with the
 *                                    same iter and gets the same item; the producer and
 *                                    each consumer walk the same list. All CTAs of a
 *                                    cluster get the same number of items.
 * A work item is one output tile and its K range [k_begin, k_begin + k_tiles) in k tiles.
 * The tile and persistent schedulers give every item of a launch the same k_tiles (K /
 * tile_k / split_k, the split-K slice blockIdx.y). The stream-K scheduler (stream_k=1)
 * hands out items whose K ranges differ and start or end mid-tile (never empty); the
 * fixup of a partial tile is in the slot split-K's reduction takes (splitk_streamk.cuh:
 * reduce, then store or not), and the ring's accounting (producer and consumers advance
 * one stage per k tile of every item) holds for any k_tiles >= 1.
 */

/* The work unit a CTA does: one output tile, and its K range for split-K. mb0 is the
 * tile's first m64 metadata block, clamped to the last tile row: a cluster's unit may
 * overhang M by a whole tile, whose CTA still runs (its peers need its multicast) but must
 * not read metadata past the CROQ_META_BLOCKS the host allocated (its results are never
 * stored: TMA clips them, store_direct checks bounds). */
struct work {
    int tm, tn, mb0, k_begin, k_tiles, tile_id;
#if CROQ_STREAM_K
    int sk_role, sk_first, sk_last; /* kernels/streamk.h: the item's role, an owner's contributors */
#endif
};

/* The unit -> tile mapping (both schedulers): tiles are handed out in cluster-shaped
 * units (cluster_m x cluster_n tiles; 1x1 without a cluster) in raster order (tile_coords,
 * common.cuh), the CTA of cluster rank r taking tile (r % cluster_m, r / cluster_m) of the
 * unit, so the CTAs of a cluster always work on tiles that share the multicast operands. */

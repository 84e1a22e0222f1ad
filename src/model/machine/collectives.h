// Collective communication time by the α–β (latency–bandwidth) model, over the
// two network levels of the hardware table: a fast domain (NVLink, xGMI, TPU
// ICI) and the network between domains (InfiniBand, RoCE, DCN). Shared by the
// parallelism planner (training) and the serving layouts.
//
// Sources: Hockney's α–β model; ring algorithms as analysed by Thakur,
// Rabenseifner & Gropp, "Optimization of Collective Communication Operations
// in MPICH" (2005); bandwidth-optimal all-reduce by Patarasuk & Yuan (2009);
// the hierarchical (intra-node reduce-scatter, inter-node all-reduce,
// intra-node all-gather) scheme NCCL uses across nodes.
#pragma once

#include <cstdint>

#include "hardware.h"

namespace napkin {

enum class Collective { all_reduce, all_gather, reduce_scatter, all_to_all, point_to_point };

// One level of the network as a collective sees it: sustained bytes per second
// per rank and direction, and a fixed cost per algorithm step.
struct Link {
  double bytes_per_s = 0;
  double latency_seconds = 0;
  // A full mesh of this many chips (Network::full_mesh), 0 behind a switch.
  std::int64_t mesh_chips = 0;
  // What a collective among `ranks` of the link's chips moves per rank and
  // direction: on a full mesh of m chips the r − 1 of its m − 1 links that
  // join them, bytes_per_s · (r − 1)/(m − 1); behind a switch all of it.
  double bytes_per_s_among(std::int64_t ranks) const;
};

// The chip's fast domain and its inter-domain network, with the chip's link
// efficiency applied to the bandwidth.
Link intra_node_link(const Chip& chip);
Link inter_node_link(const Chip& chip);
// The same links of another network (a cluster given as an input).
Link intra_node_link(const Chip& chip, const Network& network);
Link inter_node_link(const Chip& chip, const Network& network);

// Seconds for one collective over `ranks` ranks on one link (a flat ring).
// `bytes` is, per rank:
//   all_reduce:      the buffer reduced (every rank ends with all of it);
//                    2(n−1) steps of bytes/n: 2(n−1)·α + 2(n−1)/n · bytes/β
//   all_gather:      the gathered result; (n−1)·α + (n−1)/n · bytes/β
//   reduce_scatter:  the input before scattering; as all_gather
//   all_to_all:      everything the rank holds, of which (n−1)/n leaves it;
//                    (n−1)·α + (n−1)/n · bytes/β (pairwise exchange)
//   point_to_point:  the message; α + bytes/β (ranks must be 2)
// One rank communicates nothing: 0 s. Throws naming the parameter on bad input.
double collective_seconds(Collective op, double bytes, std::int64_t ranks, const Link& link);

// A group of `ranks` ranks of which `ranks_per_node` share each fast domain
// (1 ≤ ranks_per_node ≤ ranks, dividing it).
struct GroupPlacement {
  std::int64_t ranks = 1;
  std::int64_t ranks_per_node = 1;
};

// How many members of a parallel group share a node, for a group of `ranks`
// ranks whose members are `stride` ranks apart in the global rank order, on
// nodes of `chips_per_node` chips (ranks fill nodes in order). E.g. tensor
// parallelism innermost (stride 1) of size 8 on 8-chip nodes: 8; data
// parallelism outside TP = 8: 1.
std::int64_t ranks_per_node(std::int64_t ranks, std::int64_t stride, std::int64_t chips_per_node);

// Seconds for a collective over a group that may span nodes. Within one node
// it is the flat ring on the fast link; on one rank per node, the flat ring on
// the network; otherwise the hierarchical scheme:
//   all_reduce:     reduce-scatter in the node, all-reduce of bytes/r across
//                   nodes (the r ranks of a node in parallel, each on its own
//                   NIC), all-gather in the node;
//   all_gather:     gather across nodes (bytes/r per rank), then in the node;
//   reduce_scatter: the mirror of all_gather;
//   all_to_all:     the share for ranks in the node on the fast link and the
//                   rest on the network, the two in parallel (the slower one
//                   counts), plus every step's latency;
//   point_to_point: over the network when the group spans nodes.
// Never faster than either level's links allow.
double group_collective_seconds(Collective op, double bytes, const GroupPlacement& group,
                                const Link& intra, const Link& inter);

// All-reduce by recursive doubling (Thakur, Rabenseifner & Gropp 2005 §4.4):
// ⌈log2 n⌉ steps, each exchanging the whole buffer, ⌈log2 n⌉·(α + bytes/β).
// Fewer steps than the ring's 2(n−1), more bytes: the algorithm MPICH uses
// for short messages, and the role NCCL's tree and low-latency protocols
// play for a decode step's small activations across nodes (inside a node the
// engines run the one-shot below). One rank: 0 s.
double recursive_doubling_all_reduce_seconds(double bytes, std::int64_t ranks, const Link& link);

// The one-shot all-reduce that GPU serving engines run for small buffers
// inside a node (TensorRT-LLM's custom all-reduce, ONESHOT; vLLM's
// cross_device_reduce_1stage): every rank reads the other n−1 ranks' whole
// buffers over the fast link and sums them, between flag exchanges that take
// two steps, or ⌈log2 n⌉ beyond 4 ranks: max(2, ⌈log2 n⌉)·α + (n−1)·bytes/β.
// (On H100 a one-shot of a few KB takes about 7 µs over 2 GPUs, TensorRT-LLM's
// kernel as FlashInfer ships it, FlagGems-vllm pull request 773; a Triton
// one-shot takes about 11 µs over 8 GPUs, symm-mem-recipes pull request 3,
// whose hardware is not stated, its author's other benchmarks ran on 8 H100.
// Here 6 and 9 µs.) One rank: 0 s.
double one_shot_all_reduce_seconds(double bytes, std::int64_t ranks, const Link& link);

// An all-reduce over a group that may span nodes, by whichever algorithm is
// faster for this size, as a serving engine picks: the ring (flat or
// hierarchical, group_collective_seconds) or, inside the node, the one-shot
// all-reduce, then recursive doubling across nodes among the ranks that share
// a node position. Never slower than the ring; for large buffers it is the
// ring. On H100 (α 3 µs, β 360 GB/s) it gives 7.5 µs for 0.5 MB over 2 ranks
// and 10-36 µs for 0.5-4 MB over 4, where vLLM's published H100 benchmark of
// its custom all-reduce and NCCL (vLLM pull request 24111) measured 7 and
// 10-37 µs; recursive doubling, which no GPU library runs inside a node,
// was 20 % under at 3-4 MB.
double all_reduce_seconds(double bytes, const GroupPlacement& group, const Link& intra,
                          const Link& inter);

}  // namespace napkin

#include "collectives.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "validate.h"

namespace napkin {

namespace {

void require_link(const Link& link, std::string_view what) {
  // Checked before any message is built: collectives are evaluated in hot loops.
  if (std::isfinite(link.bytes_per_s) && link.bytes_per_s > 0 &&
      std::isfinite(link.latency_seconds) && link.latency_seconds >= 0)
    return;
  require_positive(link.bytes_per_s, std::string(what) + " bandwidth", "bytes/s");
  require_real(link.latency_seconds, std::string(what) + " latency", "seconds", 0);
}

}  // namespace

Link intra_node_link(const Chip& chip) { return intra_node_link(chip, chip.network); }

Link inter_node_link(const Chip& chip) { return inter_node_link(chip, chip.network); }

double Link::bytes_per_s_among(std::int64_t ranks) const {
  if (mesh_chips <= 1 || ranks >= mesh_chips) return bytes_per_s;
  return bytes_per_s * static_cast<double>(std::max<std::int64_t>(1, ranks - 1)) /
         static_cast<double>(mesh_chips - 1);
}

Link intra_node_link(const Chip& chip, const Network& n) {
  return {n.intra_node_bytes_per_s * chip.efficiency.link, n.intra_node_latency_seconds,
          n.full_mesh ? n.chips_per_node : 0};
}

Link inter_node_link(const Chip& chip, const Network& n) {
  return {n.inter_node_bytes_per_s * chip.efficiency.link, n.inter_node_latency_seconds};
}

double collective_seconds(Collective op, double bytes, std::int64_t ranks, const Link& link) {
  require_real(bytes, "message size", "bytes", 0);
  require_count(ranks, "ranks", "ranks", 1);
  require_link(link, "link");
  if (ranks == 1) return 0;
  const double n = static_cast<double>(ranks);
  const double a = link.latency_seconds, b = link.bytes_per_s_among(ranks);
  switch (op) {
    case Collective::all_reduce: return 2 * (n - 1) * a + 2 * (n - 1) / n * bytes / b;
    case Collective::all_gather:
    case Collective::reduce_scatter:
    case Collective::all_to_all: return (n - 1) * a + (n - 1) / n * bytes / b;
    case Collective::point_to_point:
      require_count(ranks, "ranks of a point-to-point transfer", "ranks", 2, 2);
      return a + bytes / b;
  }
  return 0;
}

std::int64_t ranks_per_node(std::int64_t ranks, std::int64_t stride, std::int64_t chips_per_node) {
  require_count(ranks, "group size", "ranks", 1);
  require_count(stride, "group stride", "ranks", 1);
  require_count(chips_per_node, "chips per node", "chips", 1);
  if (stride >= chips_per_node) return 1;
  // Members stride apart: a node of c chips holds c / stride of them (at most the group).
  const std::int64_t fit = std::max<std::int64_t>(1, chips_per_node / stride);
  std::int64_t r = std::min(ranks, fit);
  while (ranks % r != 0) --r;  // whole nodes of the group
  return r;
}

double group_collective_seconds(Collective op, double bytes, const GroupPlacement& group,
                                const Link& intra, const Link& inter) {
  require_count(group.ranks, "group size", "ranks", 1);
  require_count(group.ranks_per_node, "group ranks per node", "ranks", 1, group.ranks);
  if (group.ranks % group.ranks_per_node != 0)
    throw_out_of_range("group ranks per node", "ranks",
                       "a divisor of the group size " + std::to_string(group.ranks),
                       std::to_string(group.ranks_per_node));
  const std::int64_t n = group.ranks, r = group.ranks_per_node, g = n / r;
  if (g == 1) return collective_seconds(op, bytes, n, intra);
  if (r == 1) return collective_seconds(op, bytes, n, inter);
  require_link(intra, "intra-node link");
  require_link(inter, "inter-node link");
  const double rd = static_cast<double>(r);
  switch (op) {
    case Collective::all_reduce:
      return collective_seconds(Collective::reduce_scatter, bytes, r, intra) +
             collective_seconds(Collective::all_reduce, bytes / rd, g, inter) +
             collective_seconds(Collective::all_gather, bytes, r, intra);
    case Collective::all_gather:
    case Collective::reduce_scatter:
      return collective_seconds(op, bytes / rd, g, inter) + collective_seconds(op, bytes, r, intra);
    case Collective::all_to_all: {
      const double nd = static_cast<double>(n);
      const double latency = static_cast<double>(r - 1) * intra.latency_seconds +
                             static_cast<double>(n - r) * inter.latency_seconds;
      const double on_node = bytes * static_cast<double>(r - 1) / nd / intra.bytes_per_s_among(r);
      const double off_node = bytes * static_cast<double>(n - r) / nd / inter.bytes_per_s;
      return latency + std::max(on_node, off_node);
    }
    case Collective::point_to_point: return collective_seconds(op, bytes, 2, inter);
  }
  return 0;
}

namespace {

// ⌈log2 ranks⌉, after checking a small all-reduce's arguments.
double checked_log2_steps(double bytes, std::int64_t ranks, const Link& link) {
  require_real(bytes, "message size", "bytes", 0);
  require_count(ranks, "ranks", "ranks", 1);
  require_link(link, "link");
  std::int64_t steps = 0;
  for (std::int64_t span = 1; span < ranks; span *= 2) ++steps;
  return static_cast<double>(steps);
}

}  // namespace

double recursive_doubling_all_reduce_seconds(double bytes, std::int64_t ranks, const Link& link) {
  const double steps = checked_log2_steps(bytes, ranks, link);
  // Each step a pairwise exchange: one link of a mesh.
  return steps * (link.latency_seconds + bytes / link.bytes_per_s_among(2));
}

double one_shot_all_reduce_seconds(double bytes, std::int64_t ranks, const Link& link) {
  const double flag_steps = checked_log2_steps(bytes, ranks, link);
  if (ranks == 1) return 0;
  return std::max(2.0, flag_steps) * link.latency_seconds +
         static_cast<double>(ranks - 1) * bytes / link.bytes_per_s_among(ranks);
}

double all_reduce_seconds(double bytes, const GroupPlacement& group, const Link& intra,
                          const Link& inter) {
  const double ring = group_collective_seconds(Collective::all_reduce, bytes, group, intra, inter);
  const std::int64_t r = group.ranks_per_node, g = group.ranks / group.ranks_per_node;
  // Within the node first, so every rank holds its node's sum; then the
  // ranks at one position in each node finish it across nodes, in parallel.
  const double direct = one_shot_all_reduce_seconds(bytes, r, intra) +
                        (g > 1 ? recursive_doubling_all_reduce_seconds(bytes, g, inter) : 0.0);
  return std::min(ring, direct);
}

}  // namespace napkin

// Hybrid sharding (Layout::shard): ZeRO over groups of the DP × CP ranks,
// the groups replicas that all-reduce their gradient shards (PyTorch FSDP's
// HYBRID_SHARD, torchtitan's data_parallel_replicate_degree, Megatron Core's
// --num-distributed-optimizer-instances).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "hardware.h"
#include "model_presets.h"
#include "parallel.h"
#include "parallel_internal.h"
#include "parallel_software.h"
#include "parallel_test_util.h"

namespace napkin {
namespace {

using parallel_detail::group_seconds;
using parallel_detail::make_context;
using parallel_detail::placement;

// Llama 3 8B on 8 nodes of 8 H100, data parallel only.
TrainingJob job(const char* software = "modern") {
  TrainingJob j{.shape = model_preset_shape("Llama-3-8B"),
                .chip = "H100",
                .n_chips = 64,
                .seq_len = 8192,
                .global_batch = 64,
                .software = software_by_name(software)};
  return j;
}

Layout dp64(int zero, std::int64_t shard) {
  Layout l;
  l.dp = 64;
  l.zero = zero;
  l.shard = shard;
  l.micro_batch = 1;
  l.recompute = Checkpointing::full;
  return l;
}

TEST(HybridSharding, TheLayoutSaysItAndReadsItBack) {
  const Layout l = parse_layout("tp=1,pp=1,zero=3,shard=8,mb=1,recompute=full", 64);
  EXPECT_EQ(l.shard, 8);
  EXPECT_EQ(l.zero_shard(), 8);
  EXPECT_EQ(l.zero_replicas(), 8);
  EXPECT_EQ(to_string(l),
            "tp=1,pp=1,vpp=1,dp=64,cp=1,ep=1,zero=3,shard=8,mb=1,sp=on,recompute=full");
  EXPECT_EQ(parse_layout(to_string(l), 64), l);
  EXPECT_NE(layout_axes_text(l).find("ZeRO over 8"), std::string::npos) << layout_axes_text(l);
  // The whole group is the default spelling: written nowhere, stored as 0.
  const Layout whole = parse_layout("zero=3,shard=64", 64);
  EXPECT_EQ(whole.shard, 0);
  EXPECT_EQ(whole.zero_shard(), 64);
  EXPECT_EQ(whole.zero_replicas(), 1);
  EXPECT_EQ(to_string(whole).find("shard"), std::string::npos);
  // With CP the group counts DP × CP ranks.
  EXPECT_EQ(parse_layout("cp=2,zero=3,shard=16", 64).zero_replicas(), 4);
  EXPECT_THROW_NAMING(parse_layout("zero=3,shard=6", 64), "shard must divide dp × cp = 64");
  EXPECT_THROW_NAMING(parse_layout("zero=3,shard=0", 64), "shard must divide");
  EXPECT_THROW_NAMING(parse_layout("zero=3,shard=128", 64), "shard must divide");
}

TEST(HybridSharding, WhatCannotRunIsRefusedByName) {
  auto problem = [](const TrainingJob& j, const Layout& l) {
    return layout_problem(j, l).value_or("");
  };
  EXPECT_EQ(problem(job(), dp64(3, 8)), "");
  EXPECT_NE(problem(job(), dp64(3, 1))
                .find("shard (ZeRO's group of DP × CP ranks) 1 shards "
                      "nothing"),
            std::string::npos);
  EXPECT_NE(problem(job(), dp64(0, 8)).find("shards nothing"), std::string::npos);
  EXPECT_NE(problem(job(), dp64(3, 6)).find("must divide dp × cp = 64"), std::string::npos);
  EXPECT_NE(problem(job("megatron-2022"), dp64(1, 8)).find("has no hybrid sharding"),
            std::string::npos);
  TrainingJob moe = job();
  moe.shape = model_preset_shape("Mixtral-8x7B");
  EXPECT_NE(problem(moe, dp64(1, 8)).find("priced for dense models"), std::string::npos);
  for (const char* name : {"modern", "tp-overlap", "megatron-core-fp8", "fsdp", "fsdp-compile"})
    EXPECT_TRUE(software_by_name(name).hybrid_sharding) << name;
  for (const char* name : {"megatron-2021", "megatron-2022", "megatron-deepspeed", "nemo-1.0",
                           "llama3", "deepseek-v3"})
    EXPECT_FALSE(software_by_name(name).hybrid_sharding) << name;
}

TEST(HybridSharding, StatesShardOverTheGroupOnly) {
  const StageMemory whole = memory_by_stage(job(), dp64(3, 0))[0];
  const StageMemory eight = memory_by_stage(job(), dp64(3, 8))[0];
  const std::int64_t n = count_params(job().shape).total;
  // Megatron's fp32 master and moments (12 bytes) and fp32 gradients (4),
  // over 8 ranks rather than 64.
  EXPECT_NEAR(static_cast<double>(eight.optimizer_bytes), 12.0 * static_cast<double>(n) / 8, 16);
  EXPECT_NEAR(static_cast<double>(whole.optimizer_bytes), 12.0 * static_cast<double>(n) / 64, 16);
  EXPECT_NEAR(static_cast<double>(eight.grads_bytes), 4.0 * static_cast<double>(n) / 8, 16);
  EXPECT_EQ(eight.activations_bytes, whole.activations_bytes);
  // ZeRO's group and the replicas' group: a communicator each.
  EXPECT_EQ(eight.communicators, 2);
  EXPECT_EQ(whole.communicators, 1);
}

TEST(HybridSharding, TheGradientShardIsAllReducedAcrossTheReplicas) {
  // ZeRO-1 without DP overlap: the exposed data-parallel time is the
  // reduce-scatter inside the group of 8 (one node), the all-reduce of the
  // 1/8 shard across the 8 replicas (one GPU per node, over the network) and
  // the weights' all-gather inside the group.
  TrainingJob j = job();
  j.software.overlap_dp_comm = false;
  const LayoutResult r = evaluate_layout(j, dp64(1, 8));
  ASSERT_TRUE(r.valid) << r.reason;
  const auto c = make_context(j);
  const double params = static_cast<double>(count_params(j.shape).total);
  const GroupPlacement group = placement(c, 8, 1), replicas = placement(c, 8, 8);
  EXPECT_EQ(group.ranks_per_node, 8);
  EXPECT_EQ(replicas.ranks_per_node, 1);
  const double expected = group_seconds(c, Collective::reduce_scatter, 4 * params, group) +
                          group_seconds(c, Collective::all_reduce, 4 * params / 8, replicas) +
                          group_seconds(c, Collective::all_gather, 2 * params, group);
  EXPECT_NEAR(r.time.dp_comm_seconds, expected, 1e-9 * expected);
  // Over all 64: the reduce-scatter and the gather over the whole group, no
  // all-reduce. Here that is faster: the replicas all-reduce fp32 gradient
  // shards over the network, twice the bytes the whole group's hierarchical
  // reduce-scatter sends, where it gathers bf16 weights.
  const GroupPlacement all = placement(c, 64, 1);
  const double whole = group_seconds(c, Collective::reduce_scatter, 4 * params, all) +
                       group_seconds(c, Collective::all_gather, 2 * params, all);
  EXPECT_NEAR(evaluate_layout(j, dp64(1, 0)).time.dp_comm_seconds, whole, 1e-9 * whole);
  EXPECT_LT(whole, expected);
}

TEST(HybridSharding, TheSearchTriesTheNodeAndHonoursTheLock) {
  const TrainingJob j = job("fsdp-compile");
  SearchOptions o;
  o.tp = 1, o.pp = 1, o.cp = 1;
  const SearchResult all = search_layouts(j, o);
  auto count = [](const SearchResult& r, std::int64_t shard) {
    return std::count_if(r.layouts.begin(), r.layouts.end(),
                         [shard](const LayoutResult& l) { return l.layout.shard == shard; });
  };
  // ZeRO-2 and 3 (FSDP's stages) over all 64, and over the 8 in a node.
  EXPECT_GT(count(all, 8), 0);
  EXPECT_GT(count(all, 0), 0);
  EXPECT_EQ(count(all, 8) + count(all, 0), static_cast<std::ptrdiff_t>(all.layouts.size()));
  o.shard = 0;
  EXPECT_EQ(count(search_layouts(j, o), 8), 0);
  o.shard = 16;
  const SearchResult locked = search_layouts(j, o);
  ASSERT_FALSE(locked.layouts.empty());
  EXPECT_EQ(count(locked, 16), static_cast<std::ptrdiff_t>(locked.layouts.size()));
  // A framework without hybrid sharding never searches it.
  TrainingJob old = j;
  old.software = software_by_name("megatron-2022");
  o.shard.reset();
  EXPECT_EQ(count(search_layouts(old, o), 8), 0);
}

}  // namespace
}  // namespace napkin

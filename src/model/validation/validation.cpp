#include "validation.h"

#include <algorithm>
#include <functional>

#include "serving_validation.h"
#include "training_validation.h"
#include "validation_data.h"

namespace napkin {

namespace {

// One data file (or pair) and the sets predicted from it, with their keys
// declared so that a single set can be built without the others (the tests
// check that the declared keys are the built ones).
struct Source {
  std::vector<std::string_view> keys;
  std::function<std::vector<ValidationSet>()> build;
};

std::vector<ValidationSet> one(ValidationSet s) {
  std::vector<ValidationSet> out;
  out.push_back(std::move(s));
  return out;
}

const std::vector<Source>& sources() {
  static const std::vector<Source> s = {
      {{"korthikanti-2022-table5", "narayanan-2021-table1"},
       [] { return megatron_validation_sets(validation_data("parallelism/published_runs.csv")); }},
      {{"vtrain-single-node", "vtrain-multi-node"},
       [] {
         return vtrain_validation_sets(validation_data("vtrain/single_node_runs.csv"),
                                       validation_data("vtrain/multi_node_runs_public.csv"));
       }},
      {{"megatron-core-0.8-h100"},
       [] {
         return one(
             megatron_lm_h100_validation_set(validation_data("megatron_lm/h100_scaling_r0_8.csv")));
       }},
      {{"megatron-bridge-h100"},
       [] {
         return one(megatron_bridge_validation_set(
             validation_data("megatron_bridge/h100_pretraining.csv")));
       }},
      {{"megatron-bridge-b200"},
       [] {
         return one(megatron_bridge_b200_validation_set(
             validation_data("megatron_bridge/b200_pretraining.csv")));
       }},
      {{"megatron-bridge-gb200"},
       [] {
         return one(megatron_bridge_gb200_validation_set(
             validation_data("megatron_bridge/gb200_pretraining.csv")));
       }},
      {{"megatron-bridge-gb300"},
       [] {
         return one(megatron_bridge_gb300_validation_set(
             validation_data("megatron_bridge/gb300_pretraining.csv")));
       }},
      {{"megatron-bridge-moe-h100"},
       [] {
         return one(megatron_bridge_moe_validation_set(
             validation_data("megatron_bridge/h100_moe_pretraining.csv")));
       }},
      {{"dgxc-h100"},
       [] {
         return one(dgxc_h100_validation_set(validation_data("dgxc/h100_pretraining_24_11.csv")));
       }},
      {{"dgxc-h100-25.04"},
       [] {
         return one(
             dgxc_h100_25_04_validation_set(validation_data("dgxc/h100_pretraining_25_04.csv")));
       }},
      {{"dgxc-gb200"},
       [] {
         return one(dgxc_gb200_validation_set(validation_data("dgxc/gb200_pretraining_25_05.csv")));
       }},
      {{"nemo-24.07-h100"},
       [] {
         return one(nemo_24_07_validation_set(validation_data("nemo/h100_pretraining_24_07.csv")));
       }},
      {{"maxtext-tpu-v5e", "maxtext-tpu-v5p"},
       [] { return maxtext_validation_sets(validation_data("maxtext/tpu_v5_2023.csv")); }},
      {{"torchtitan-a100"},
       [] { return one(torchtitan_validation_set(validation_data("torchtitan/a100_fsdp2.csv"))); }},
      {{"torchtitan-h100"},
       [] {
         return one(torchtitan_h100_throughput_set(validation_data("torchtitan/h100_202412.csv")));
       }},
      {{"torchtitan-h100-2025"},
       [] {
         return one(torchtitan_h100_2025_throughput_set(
             validation_data("torchtitan/h100_202506_async_tp.csv")));
       }},
      {{"torchtitan-h200"},
       [] {
         return one(
             torchtitan_h200_throughput_set(validation_data("torchtitan/h200_202506_trainy.csv")));
       }},
      {{"torchtitan-h200-memory"},
       [] {
         return one(
             torchtitan_h200_memory_set(validation_data("torchtitan/h200_202506_trainy.csv")));
       }},
      {{"torchtitan-h100-memory"},
       [] {
         return one(torchtitan_h100_memory_set(validation_data("torchtitan/h100_202412.csv")));
       }},
      {{"llm-foundry-a100", "llm-foundry-h100"},
       [] {
         return llm_foundry_validation_sets(validation_data("llm_foundry/mpt_throughput.csv"));
       }},
      {{"serving-trtllm-throughput", "serving-trtllm-throughput-v0.5",
        "serving-trtllm-first-token"},
       [] { return serving_validation_sets(validation_data("serving/published_serving.csv")); }},
      {{"serving-trtllm-offline-v1.0", "serving-trtllm-offline-v1.0-fp4"},
       [] {
         return trtllm_offline_validation_sets(validation_data("serving/trtllm_offline_v1.csv"));
       }},
      {{"serving-trtllm-offline-v0.17", "serving-trtllm-offline-v0.17-moe"},
       [] {
         return trtllm_offline_validation_sets(validation_data("serving/trtllm_offline_v0_17.csv"));
       }},
  };
  return s;
}

}  // namespace

const std::vector<std::string_view>& public_validation_keys() {
  static const std::vector<std::string_view> keys = [] {
    std::vector<std::string_view> out;
    for (const Source& s : sources()) out.insert(out.end(), s.keys.begin(), s.keys.end());
    return out;
  }();
  return keys;
}

std::vector<ValidationSet> public_validation_sets(std::string_view only) {
  std::vector<ValidationSet> out;
  for (const Source& source : sources()) {
    if (!only.empty() &&
        std::find(source.keys.begin(), source.keys.end(), only) == source.keys.end())
      continue;
    for (ValidationSet& s : source.build())
      if (only.empty() || s.key == only) out.push_back(std::move(s));
  }
  return out;
}

}  // namespace napkin

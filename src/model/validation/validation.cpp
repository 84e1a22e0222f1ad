#include "validation.h"

#include "serving_validation.h"
#include "training_validation.h"
#include "validation_data.h"

namespace napkin {

std::vector<ValidationSet> public_validation_sets() {
  std::vector<ValidationSet> out =
      megatron_validation_sets(validation_data("parallelism/published_runs.csv"));
  for (ValidationSet& s :
       vtrain_validation_sets(validation_data("vtrain/single_node_runs.csv"),
                              validation_data("vtrain/multi_node_runs_public.csv")))
    out.push_back(std::move(s));
  out.push_back(
      megatron_bridge_validation_set(validation_data("megatron_bridge/h100_pretraining.csv")));
  out.push_back(
      megatron_bridge_b200_validation_set(validation_data("megatron_bridge/b200_pretraining.csv")));
  out.push_back(megatron_bridge_moe_validation_set(
      validation_data("megatron_bridge/h100_moe_pretraining.csv")));
  out.push_back(torchtitan_validation_set(validation_data("torchtitan/a100_fsdp2.csv")));
  out.push_back(torchtitan_h100_memory_set(validation_data("torchtitan/h100_202412.csv")));
  for (ValidationSet& s : serving_validation_sets(validation_data("serving/published_serving.csv")))
    out.push_back(std::move(s));
  for (const char* name : {"serving/trtllm_offline_v1.csv", "serving/trtllm_offline_v0_17.csv"})
    for (ValidationSet& s : trtllm_offline_validation_sets(validation_data(name)))
      out.push_back(std::move(s));
  return out;
}

}  // namespace napkin

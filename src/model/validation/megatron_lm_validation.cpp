// Megatron-LM's own published scaling on H100: Megatron-Core r0.8.0's GPT
// weak-scaling table (1.7B to 462B on 48 to 6,144 GPUs) and the two stated end
// points of its 177B strong-scaling run, in bf16.
#include <stdexcept>
#include <string>
#include <string_view>

#include "csv.h"
#include "gpt_shape.h"
#include "hardware.h"
#include "parallel.h"
#include "training_validation.h"
#include "validation_detail.h"

namespace napkin {

ValidationSet megatron_lm_h100_validation_set(std::string_view text) {
  ValidationSet set{
      "megatron-core-0.8-h100",
      "Megatron-LM's H100 scaling (Megatron-Core r0.8.0), BF16",
      "TFLOP/s per GPU (Megatron's count)",
      "TFLOP/s",
      "NVIDIA Megatron-LM README and model table (commit 937571c, July 2024): GPT 1.7B-462B "
      "weak scaling on 48-6,144 H100 and GPT 177B strong scaling from 96 to 4,608 H100, "
      "vocabulary 131,072, 4,096 tokens per sequence; tests/data/megatron_lm/SOURCE.md",
      "held out (no constant set from these rows); software tp-overlap (the README's TP, DP "
      "and pipeline overlaps), the DGX H100's network (the cluster is not stated); the "
      "micro-batch, virtual pipeline size and recomputation are not published and are searched "
      "(the fastest that fits, as the authors tuned each run); the strong-scaling rows' layout "
      "is the model table's for that model and batch, their measurement the README's MFU "
      "rounded to a whole percent, times 989 TFLOP/s",
      {}};
  const std::string file = "megatron_lm/h100_scaling_r0_8.csv";
  const CsvText csv(text, file);
  const std::size_t scaling = csv.column("scaling"), model = csv.column("model"),
                    heads = csv.column("heads"), hidden = csv.column("hidden"),
                    layers = csv.column("layers"), tp = csv.column("tp"), pp = csv.column("pp"),
                    dp = csv.column("dp"), gpus = csv.column("gpus"),
                    batch = csv.column("global_batch"), tflops = csv.column("tflops_per_gpu"),
                    mfu = csv.column("mfu_pct");
  const double peak_tflops = chip_by_name("H100").peak_flops_per_s / 1e12;
  for (std::size_t r = 0; r < csv.size(); ++r) {
    const std::string where = file + ", line " + std::to_string(csv.line(r));
    const std::string& kind = csv.at(r, scaling);
    if (kind != "weak" && kind != "strong")
      throw std::invalid_argument(where + ": scaling must be weak or strong; got \"" + kind + "\"");
    TrainingJob j;
    // GPT layers with untied embeddings: the table's parameter counts (177B
    // is 96 layers of 12 h² and two 131,072-row tables of 12,288).
    j.shape = gpt_shape(csv.count(r, layers), csv.count(r, hidden), csv.count(r, heads), 131072);
    j.shape.tied_embeddings = false;
    j.chip = "H100";
    j.network = cluster_by_name("dgx-h100").network;
    j.software = software_by_name("tp-overlap");
    j.n_chips = csv.count(r, gpus);
    j.seq_len = 4096;
    j.global_batch = csv.count(r, batch);
    SearchOptions o;
    o.tp = csv.count(r, tp);
    o.pp = csv.count(r, pp);
    o.dp = csv.count(r, dp);
    o.cp = 1;
    o.ep = 1;
    o.zero = 1;   // the distributed optimizer (--overlap-param-gather needs it)
    o.shard = 0;  // one instance: r0.8.0 had no --num-distributed-optimizer-instances
    // Megatron interleaves down to one layer per model chunk.
    o.max_vpp = j.shape.n_layers / *o.pp;
    const SearchResult found = search_layouts(j, o);
    if (found.fitting == 0)
      throw std::invalid_argument(
          where + ": no layout of " + std::to_string(j.n_chips) + " GPUs at tp=" +
          std::to_string(*o.tp) + " pp=" + std::to_string(*o.pp) + " dp=" + std::to_string(*o.dp) +
          " fits" + (found.none_reason.empty() ? std::string() : " (" + found.none_reason + ")"));
    const LayoutResult& best = found.layouts.front();
    const double predicted =
        megatron_step_flops(j) / best.step_seconds / static_cast<double>(j.n_chips) / 1e12;
    // The strong-scaling rows print only the MFU.
    const double measured =
        kind == "weak" ? csv.real(r, tflops) : csv.real(r, mfu) / 100.0 * peak_tflops;
    set.rows.push_back(
        {kind + ": " +
             validation_detail::layout_label("GPT " + csv.at(r, model), best.layout, j.n_chips),
         predicted, measured, "tp-overlap"});
  }
  return set;
}

}  // namespace napkin

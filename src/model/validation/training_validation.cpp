#include "training_validation.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>

#include "csv.h"
#include "gpt_shape.h"
#include "hardware.h"
#include "model_presets.h"
#include "parallel.h"
#include "validation_detail.h"

namespace napkin {

namespace validation_detail {

std::string layout_label(const std::string& model, const Layout& l, std::int64_t chips) {
  std::string recompute = " selective";
  if (l.recompute == Checkpointing::selective && l.recompute_modules != 0)
    recompute += ":" + recompute_modules_text(l.recompute_modules);
  if (l.recompute == Checkpointing::full)
    recompute = l.recompute_layers > 0
                    ? " full recompute of " + std::to_string(l.recompute_layers) + " layers"
                    : " full recompute";
  if (l.recompute == Checkpointing::none) recompute = " no recompute";
  return model + " on " + std::to_string(chips) + ": tp=" + std::to_string(l.tp) +
         " pp=" + std::to_string(l.pp) + (l.vpp > 1 ? " vpp=" + std::to_string(l.vpp) : "") +
         (l.cp > 1 ? " cp=" + std::to_string(l.cp) : "") + " dp=" + std::to_string(l.dp) +
         (l.ep > 1 ? " ep=" + std::to_string(l.ep) : "") +
         (l.etp > 0 && l.etp != l.tp ? " etp=" + std::to_string(l.etp) : "") +
         " mb=" + std::to_string(l.micro_batch) + recompute;
}

SummaryLayout::SummaryLayout(const CsvText& csv)
    : csv_(csv),
      gpus_(csv.column("gpus")),
      seq_(csv.column("seq_len")),
      batch_(csv.column("global_batch")),
      mb_(csv.column("micro_batch")),
      tp_(csv.column("tp")),
      pp_(csv.column("pp")),
      cp_(csv.column("cp")),
      vp_(csv.column("vp")) {}

void SummaryLayout::read(std::size_t r, TrainingJob& j, Layout& l) const {
  j.n_chips = csv_.count(r, gpus_);
  j.seq_len = csv_.count(r, seq_);
  j.global_batch = csv_.count(r, batch_);
  l.tp = csv_.count(r, tp_);
  l.pp = csv_.count(r, pp_);
  l.cp = csv_.count(r, cp_);
  l.vpp = csv_.at(r, vp_).empty() ? 1 : csv_.count(r, vp_);
  l.dp = j.n_chips / (l.tp * l.pp * l.cp);
  l.micro_batch = csv_.count(r, mb_);
  l.sequence_parallel = l.tp > 1;
}

}  // namespace validation_detail

using validation_detail::layout_label;
using validation_detail::SummaryLayout;

std::vector<ValidationSet> megatron_validation_sets(std::string_view text) {
  const CsvText csv(text, "parallelism/published_runs.csv");
  const std::size_t id = csv.column("run_id"), model = csv.column("model"),
                    layers = csv.column("layers"), hidden = csv.column("d_model"),
                    heads = csv.column("heads"), seq = csv.column("seq_len"),
                    vocab = csv.column("vocab"), chips = csv.column("num_chips"),
                    tp = csv.column("TP"), pp = csv.column("PP"), vpp = csv.column("VPP"),
                    dp = csv.column("DP"), sp = csv.column("SP"), mb = csv.column("micro_batch"),
                    batch = csv.column("global_batch_seqs"), recompute = csv.column("recompute"),
                    time = csv.column("iter_time_s"),
                    tflops = csv.column("tflops_per_chip_reported");
  ValidationSet k{"korthikanti-2022-table5",
                  "Korthikanti et al. 2022, Table 5",
                  "iteration time",
                  "s",
                  "Korthikanti et al., Reducing Activation Recomputation in Large Transformer "
                  "Models (MLSys 2023), Table 5: A100-80GB, Selene",
                  "",
                  {},
                  true};
  ValidationSet n{"narayanan-2021-table1",
                  "Narayanan et al. 2021, Table 1",
                  "TFLOP/s per GPU (with recomputation)",
                  "TFLOP/s",
                  "Narayanan et al., Efficient Large-Scale Language Model Training on GPU "
                  "Clusters Using Megatron-LM (SC'21), Table 1: A100-80GB, Selene",
                  "the paper states neither micro-batch nor schedule: 1F1B and the fastest "
                  "micro-batch that fits, as the authors tuned each run",
                  {}};
  for (std::size_t r = 0; r < csv.size(); ++r) {
    const std::string& run = csv.at(r, id);
    const bool is_k = run.rfind("korthikanti22_t5_", 0) == 0;
    const bool is_n = run.rfind("megatron21_t1_", 0) == 0;
    if (!is_k && !is_n) continue;
    TrainingJob j;
    j.shape = gpt_shape(csv.count(r, layers), csv.count(r, hidden), csv.count(r, heads),
                        csv.count(r, vocab));
    j.chip = "A100-80";
    j.n_chips = csv.count(r, chips);
    j.seq_len = csv.count(r, seq);
    j.global_batch = csv.count(r, batch);
    j.software = software_by_name(is_k ? "megatron-2022" : "megatron-2021");
    Layout l;
    l.tp = csv.count(r, tp);
    l.pp = csv.count(r, pp);
    l.vpp = csv.at(r, vpp).empty() ? 1 : csv.count(r, vpp);
    l.dp = csv.count(r, dp);
    l.zero = 0;
    l.micro_batch = csv.at(r, mb).empty() ? 1 : csv.count(r, mb);
    l.sequence_parallel = csv.at(r, sp) == "1";
    l.recompute = csv.at(r, recompute) == "full" ? Checkpointing::full : Checkpointing::selective;
    if (is_k) {
      const LayoutResult res = evaluate_layout(j, l);
      k.rows.push_back({layout_label(csv.at(r, model), l, j.n_chips), res.step_seconds,
                        csv.real(r, time), "megatron-2022"});
      continue;
    }
    LayoutResult best;
    for (std::int64_t m = 1; m <= 16; m *= 2) {
      l.micro_batch = m;
      const LayoutResult res = evaluate_layout(j, l);
      if (res.fits && (!best.fits || res.step_seconds < best.step_seconds)) best = res;
    }
    if (!best.fits) continue;
    const double predicted =
        megatron_step_flops(j, true) / best.step_seconds / static_cast<double>(j.n_chips) / 1e12;
    n.rows.push_back({layout_label(csv.at(r, model), best.layout, j.n_chips), predicted,
                      csv.real(r, tflops), "megatron-2021"});
  }
  return {k, n};
}

namespace {

// The vTrain authors' cluster as their SOURCE states it: A100 GPUs, 8 per
// node, 800 Gb/s of InfiniBand per node (100 GB/s, 12.5 GB/s per GPU); NVLink
// inside the node as in a DGX A100.
Network vtrain_network() {
  const Network& dgx = cluster_by_name("dgx-a100").network;
  return custom_network(8, dgx.intra_node_bytes_per_s / 1e9, 800.0 / 8 / 8, dgx);
}

// Megatron pads the vocabulary to a multiple of 128 × TP
// (make_vocab_size_divisible_by); GPT-2's tokenizer has 50,257 entries.
std::int64_t padded_vocab(std::int64_t tp) {
  const std::int64_t unit = 128 * tp;
  return (50257 + unit - 1) / unit * unit;
}

ValidationSet vtrain_set(std::string_view text, bool multi) {
  const CsvText csv(text,
                    multi ? "vtrain/multi_node_runs_public.csv" : "vtrain/single_node_runs.csv");
  const std::size_t gpus = csv.column("# GPUs"), batch = csv.column("global batch"),
                    mb = csv.column("micro batch"), hidden = csv.column("hidden size"),
                    heads = csv.column("attention heads"), layers = csv.column("# layers"),
                    seq = csv.column("sequence length"), tp = csv.column("tensor parallelism"),
                    dp = csv.column("data parallelism"), pp = csv.column("pipeline parallelism"),
                    time = csv.column("iteration time (ms)");
  ValidationSet set{multi ? "vtrain-multi-node" : "vtrain-single-node",
                    multi ? "vTrain, multi-node (public rows)" : "vTrain, single node",
                    "iteration time",
                    "ms",
                    "Bang et al., vTrain (MICRO-57, 2024): measured Megatron-DeepSpeed iterations "
                    "on A100, 8 per node, 800 Gb/s InfiniBand per node",
                    "",
                    {},
                    true};
  const Network net = vtrain_network();
  for (std::size_t r = 0; r < csv.size(); ++r) {
    TrainingJob j;
    Layout l;
    l.tp = csv.count(r, tp);
    l.pp = csv.count(r, pp);
    l.dp = csv.count(r, dp);
    l.micro_batch = csv.count(r, mb);
    l.zero = 0;
    l.sequence_parallel = false;
    l.recompute = Checkpointing::full;
    j.shape = gpt_shape(csv.count(r, layers), csv.count(r, hidden), csv.count(r, heads),
                        padded_vocab(l.tp));
    j.chip = "A100-80";
    j.network = net;
    j.n_chips = csv.count(r, gpus);
    j.seq_len = csv.count(r, seq);
    j.global_batch = csv.count(r, batch);
    j.software = software_by_name("megatron-deepspeed");
    const LayoutResult res = evaluate_layout(j, l);
    if (!res.valid) continue;
    set.rows.push_back({layout_label("h=" + csv.at(r, hidden) + " L=" + csv.at(r, layers) +
                                         " s=" + csv.at(r, seq) + " B=" + csv.at(r, batch),
                                     l, j.n_chips),
                        res.step_seconds * 1e3, csv.real(r, time), "megatron-deepspeed"});
  }
  return set;
}

}  // namespace

std::vector<ValidationSet> vtrain_validation_sets(std::string_view single_node_csv,
                                                  std::string_view multi_node_csv) {
  return {vtrain_set(single_node_csv, false), vtrain_set(multi_node_csv, true)};
}

namespace {

// One system's rows of the Megatron Bridge summaries, each with its table's
// layout and batch and the recipe's settings (megatron-core-fp8, no
// recomputation), on the system's published cluster.
void add_megatron_bridge_rows(std::string_view text, const std::string& file, const char* chip,
                              const char* cluster, ValidationSet& set) {
  const CsvText csv(text, file);
  const std::size_t container = csv.column("container"), model = csv.column("model"),
                    fsdp = csv.column("fsdp"), tokens = csv.column("tokens_per_s_per_gpu");
  const SummaryLayout summary(csv);
  for (std::size_t r = 0; r < csv.size(); ++r) {
    const std::string& name = csv.at(r, model);
    TrainingJob j;
    // Meta's published configurations (config.json of each model).
    if (name == "LLAMA3_70B")
      j.shape = model_preset_shape("Llama-3-70B");
    else if (name == "LLAMA3.1_405B")
      j.shape = model_preset_shape("Llama-3.1-405B");
    else
      continue;
    j.chip = chip;
    j.network = cluster_by_name(cluster).network;
    j.software = software_by_name("megatron-core-fp8");
    Layout l;
    summary.read(r, j, l);
    l.zero = csv.count(r, fsdp) > 0 ? 3 : 1;  // the distributed optimizer, or FSDP
    l.recompute = Checkpointing::none;
    const LayoutResult res = evaluate_layout(j, l);
    const double predicted = res.tokens_per_second_per_chip;
    set.rows.push_back({csv.at(r, container) + ": " + layout_label(name, l, j.n_chips), predicted,
                        csv.real(r, tokens), "megatron-core-fp8"});
  }
}

}  // namespace

ValidationSet megatron_bridge_moe_validation_set(std::string_view text) {
  ValidationSet set{
      "megatron-bridge-moe-h100",
      "Megatron Bridge (NeMo) MoE on DGX-H100, FP8",
      "tokens/s per GPU",
      "tokens/s",
      "NVIDIA Megatron Bridge performance summaries, NeMo containers 25.11-26.04.01: "
      "Qwen3-235B-A22B on 256 H100 SXM, FP8, EP 32 folded over TP 2 (expert TP 1)",
      "held out (no constant set from these rows); the recipe's all-to-all dispatcher with its "
      "EP overlap, TP overlap off and force-balanced routing; the Qwen3-30B rows are left out "
      "(their recipe's HybridEP dispatcher and CUDA graphs are not modelled)",
      {}};
  const std::string file = "megatron_bridge/h100_moe_pretraining.csv";
  const CsvText csv(text, file);
  const std::size_t container = csv.column("container"), model = csv.column("model"),
                    ep = csv.column("ep"), etp = csv.column("etp"),
                    tokens = csv.column("tokens_per_s_per_gpu");
  const SummaryLayout summary(csv);
  for (std::size_t r = 0; r < csv.size(); ++r) {
    if (csv.at(r, model) != "QWEN3_235B_A22B") continue;
    TrainingJob j;
    j.shape = model_preset_shape("Qwen3-235B-A22B");  // Qwen/Qwen3-235B-A22B's config.json
    j.chip = "H100";
    j.network = cluster_by_name("dgx-h100").network;
    // The recipe (qwen3_235b_a22b_pretrain_256gpu_h100_fp8cs_config):
    // moe_a2a_overlap and overlap_moe_expert_parallel_comm on,
    // tp_comm_overlap off (the backward's overlap stays, Megatron's default).
    j.software = software_by_name("megatron-core-fp8");
    j.software.tp_overlap = TpOverlap::backward;
    j.software.overlap_ep_comm = true;
    Layout l;
    summary.read(r, j, l);
    l.ep = csv.count(r, ep);
    l.etp = csv.count(r, etp) == l.tp ? 0 : csv.count(r, etp);
    l.zero = 1;
    l.recompute = Checkpointing::none;
    const LayoutResult res = evaluate_layout(j, l);
    if (!res.valid) throw std::invalid_argument(file + ": " + res.reason);
    const double predicted = res.tokens_per_second_per_chip;
    set.rows.push_back({csv.at(r, container) + ": " + layout_label("Qwen3-235B-A22B", l, j.n_chips),
                        predicted, csv.real(r, tokens),
                        "megatron-core-fp8 (EP overlap, TP overlap off)"});
  }
  return set;
}

ValidationSet megatron_bridge_validation_set(std::string_view text) {
  ValidationSet set{"megatron-bridge-h100",
                    "Megatron Bridge (NeMo) on DGX-H100, FP8",
                    "tokens/s per GPU",
                    "tokens/s",
                    "NVIDIA Megatron Bridge performance summaries, NeMo containers 25.09-26.06: "
                    "Llama 3 70B on 64 and Llama 3.1 405B on 1,024 H100 SXM, FP8",
                    "the tables give the layout and batch; recomputation (none) and the TP "
                    "overlap come from the published recipes; rows are predicted whether or not "
                    "the model's memory estimate fits them",
                    {}};
  add_megatron_bridge_rows(text, "megatron_bridge/h100_pretraining.csv", "H100", "dgx-h100", set);
  return set;
}

ValidationSet megatron_bridge_b200_validation_set(std::string_view text) {
  ValidationSet set{
      "megatron-bridge-b200",
      "Megatron Bridge (NeMo) on DGX-B200, FP8",
      "tokens/s per GPU",
      "tokens/s",
      "NVIDIA Megatron Bridge performance summaries, NeMo containers 25.09 and 25.11: "
      "Llama 3.1 405B on 128 B200, FP8 with current scaling",
      "as the H100 set; B200's GEMM efficiencies from published MAMF sweeps, its NVLink "
      "fraction from nccl-tests on 8 B200, its fused attention from FlashAttention-4 inside "
      "training steps, its HBM fraction Hopper's; no constant was set from these rows",
      {}};
  add_megatron_bridge_rows(text, "megatron_bridge/b200_pretraining.csv", "B200", "dgx-b200", set);
  return set;
}

ValidationSet megatron_bridge_gb200_validation_set(std::string_view text) {
  ValidationSet set{
      "megatron-bridge-gb200",
      "Megatron Bridge (NeMo) on DGX-GB200, FP8",
      "tokens/s per GPU",
      "tokens/s",
      "NVIDIA Megatron Bridge performance summaries, NeMo containers 25.11-26.06: "
      "Llama 3.1 405B on 256 GB200 (NVL72 racks), FP8 with current scaling",
      "as the H100 set; GB200 is B200's die at the GB200 NVL72 datasheet's peaks (2.5 PFLOP/s "
      "bf16, 5 FP8, 8 TB/s) with B200's in-step GEMM fractions scaled by GB200's MAMF rows, "
      "on the NVL72 cluster (72 GPUs per "
      "NVLink domain); no constant was set from these rows; the MXFP8 and NVFP4 rows and the "
      "Llama 3 70B rows (Megatron FSDP with activations offloaded to the Grace CPU) are left out",
      {}};
  add_megatron_bridge_rows(text, "megatron_bridge/gb200_pretraining.csv", "GB200", "gb200-nvl72",
                           set);
  return set;
}

ValidationSet megatron_bridge_gb300_validation_set(std::string_view text) {
  ValidationSet set{
      "megatron-bridge-gb300",
      "Megatron Bridge (NeMo) on DGX-GB300, FP8",
      "tokens/s per GPU",
      "tokens/s",
      "NVIDIA Megatron Bridge performance summaries, NeMo containers 25.11-26.06: "
      "Llama 3.1 405B on 256 GB300 (NVL72 racks), FP8 with current scaling",
      "as the H100 set; GB300 is Blackwell Ultra at the GB300 NVL72 datasheet's peaks (2.5 "
      "PFLOP/s bf16, 5 FP8, 8 TB/s) with GB200's achieved fractions (its doubled softmax "
      "exponential rate unpriced), on the NVL72 cluster with 800 Gb/s per GPU between racks; no "
      "constant was set from these rows; the MXFP8 and NVFP4 rows and the Llama 3 70B rows "
      "(Megatron FSDP with activations offloaded to the Grace CPU) are left out",
      {}};
  add_megatron_bridge_rows(text, "megatron_bridge/gb300_pretraining.csv", "GB300", "gb300-nvl72",
                           set);
  return set;
}

}  // namespace napkin

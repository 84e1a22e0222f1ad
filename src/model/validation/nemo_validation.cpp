// NeMo on NVIDIA's own clusters. NeMo 1.0 (the NeMo Framework Launcher's
// Megatron GPT training) on DGX-H100: the NeMo 24.07 performance summary and
// the DGX Cloud Benchmarking recipes of release 24.11, each row the nemo-1.0
// preset with what the launcher's configuration of the model sets (the CSV's
// columns), nothing else. NeMo 2.0: the DGX Cloud Benchmarking recipes of
// releases 25.04 (H100) and 25.05 (GB200), each row megatron-core-fp8 with
// what NeMo's performance scripts set.
#include <optional>
#include <stdexcept>
#include <string>

#include "csv.h"
#include "gpt_shape.h"
#include "hardware.h"
#include "model_presets.h"
#include "parallel.h"
#include "training_validation.h"
#include "validation_detail.h"

namespace napkin {

using validation_detail::layout_label;
using validation_detail::SummaryLayout;

namespace {

// Megatron pads the vocabulary to a multiple of 128 × TP
// (make_vocab_size_divisible_by, multiplied by the TP size).
std::int64_t padded_to(std::int64_t vocab, std::int64_t tp) {
  const std::int64_t unit = 128 * tp;
  return (vocab + unit - 1) / unit * unit;
}

// "FILE, line N": where a table's row r is, for its refusals.
std::string at_line(const std::string& file, const CsvText& csv, std::size_t r) {
  return file + ", line " + std::to_string(csv.line(r));
}

// A row's precision column: true for fp8, false for bf16; anything else is
// refused with the row's place and the value.
bool is_fp8(const std::string& precision, const std::string& where) {
  if (precision != "bf16" && precision != "fp8")
    throw std::invalid_argument(where + ": precision must be bf16 or fp8; got \"" + precision +
                                "\"");
  return precision == "fp8";
}

// A published step time as tokens per second per GPU: the job's sequence
// length × global batch ÷ the step ÷ its GPUs.
double per_gpu_tokens_per_second(const TrainingJob& j, double step_seconds) {
  return static_cast<double>(j.seq_len * j.global_batch) / step_seconds /
         static_cast<double>(j.n_chips);
}

// The launcher's models: NeMo's GPT-3 configurations (GPT-2's tokenizer, tied
// embeddings, biases), Meta's Llama 2 and 3 and NVIDIA's Nemotron (squared
// ReLU, no linear biases, untied, a 256k vocabulary), as the configurations
// of the time give them; empty if unknown. The DGX Cloud recipes' Llama 3.1
// 405B is a synthetic-data configuration: 16 query groups and GPT-2's BPE
// vocabulary (its llama3.1_405b.yaml).
std::optional<ModelShape> nemo_shape(const std::string& name, std::int64_t tp) {
  if (name == "GPT3-5B") return gpt_shape(24, 4096, 32, padded_to(50257, tp));
  if (name == "GPT3-20B") return gpt_shape(44, 6144, 48, padded_to(50257, tp));
  if (name == "GPT3-175B") return gpt_shape(96, 12288, 96, padded_to(50257, tp));
  if (name == "LLAMA2-7B") return ModelShape{32, 4096, 11008, 32, 32, 128, padded_to(32000, tp)};
  if (name == "LLAMA2-13B") return ModelShape{40, 5120, 13824, 40, 40, 128, padded_to(32000, tp)};
  if (name == "LLAMA2-70B") return ModelShape{80, 8192, 28672, 64, 8, 128, padded_to(32000, tp)};
  auto llama3 = [&](std::string_view preset) {
    ModelShape s = model_preset_shape(preset);
    s.vocab = padded_to(s.vocab, tp);
    return s;
  };
  if (name == "LLAMA3-8B" || name == "Llama3.1-8B") return llama3("Llama-3-8B");
  if (name == "LLAMA3-70B" || name == "Llama3.1-70B") return llama3("Llama-3-70B");
  if (name == "Llama3.1-405B")
    return ModelShape{126, 16384, 53248, 128, 16, 128, padded_to(50257, tp)};
  auto nemotron = [&](std::int64_t layers, std::int64_t d, std::int64_t heads,
                      std::int64_t kv_heads) {
    ModelShape s{layers, d, 4 * d, heads, kv_heads, d / heads, padded_to(256000, tp)};
    s.gated = false;
    s.norm_bias = true;  // LayerNorm1p: a weight and a bias
    return s;
  };
  if (name == "Nemotron-8B") return nemotron(32, 4096, 32, 32);
  if (name == "Nemotron-22B") return nemotron(40, 6144, 48, 48);
  if (name == "Nemotron4-15B") return nemotron(32, 6144, 48, 8);
  if (name == "Nemotron-340B" || name == "Nemotron4-340B") return nemotron(96, 18432, 96, 8);
  return std::nullopt;
}

// One row of a launcher table, priced: the model, its layout and batch, and
// the nemo-1.0 preset with what the model's configuration sets.
struct LauncherColumns {
  explicit LauncherColumns(const CsvText& csv)
      : model(csv.column("model")),
        overlap(csv.column("tp_comm_overlap")),
        recompute(csv.column("recompute")),
        optimizer_dtype(csv.column("optimizer_dtype")),
        grad_dtype(csv.column("grad_sync_dtype")),
        loss_fusion(csv.column("cross_entropy_loss_fusion")),
        dropout(csv.column("dropout")),
        summary(csv) {}
  std::size_t model, overlap, recompute, optimizer_dtype, grad_dtype, loss_fusion, dropout;
  SummaryLayout summary;
};

struct LauncherRow {
  TrainingJob job;
  Layout layout;
  std::string setting;  // what the row's configuration changes, for the report
};

LauncherRow launcher_row(const CsvText& csv, const LauncherColumns& c, std::size_t r, bool fp8,
                         const std::string& file) {
  LauncherRow out;
  TrainingJob& j = out.job;
  Layout& l = out.layout;
  c.summary.read(r, j, l);
  const std::optional<ModelShape> shape = nemo_shape(csv.at(r, c.model), l.tp);
  if (!shape)
    throw std::invalid_argument(at_line(file, csv, r) + ": no model named " + csv.at(r, c.model));
  j.shape = *shape;
  j.chip = "H100";
  j.network = cluster_by_name("dgx-h100").network;
  // NeMo 1.0 with Transformer Engine: FP8 is delayed scaling (TE's default
  // recipe of 2024), every layer in FP8, layers split evenly over the
  // pipeline; userbuffers TP overlap where the model's configuration turns
  // it on, Megatron's backward overlap otherwise. An optimizer in bf16
  // (optim.dtype) keeps two bf16 moments and no master copy (NeMo's
  // setup_optimization: store_params off when the optimizer's dtype is the
  // model's), and its gradient buffer is in grad_sync_dtype.
  const bool ub = csv.at(r, c.overlap) == "yes";
  j.software = software_by_name("nemo-1.0");
  j.software.fp8_matmuls = fp8;
  if (fp8) j.software.fp8_recipe = Fp8Recipe::delayed;
  if (ub) j.software.tp_overlap = TpOverlap::full;
  const bool bf16_states = csv.at(r, c.optimizer_dtype) == "bf16";
  if (bf16_states) j.software.optimizer_bytes_per_param = 4;
  const bool bf16_grads = csv.at(r, c.grad_dtype) == "bf16";
  j.software.fp32_grads = !bf16_grads;
  // cross_entropy_loss_fusion: Megatron Core's native fused kernels, else
  // its unfused loss (the preset's).
  const bool fused_loss = csv.at(r, c.loss_fusion) == "yes";
  if (fused_loss) j.software.loss_kernel = LossKernel::megatron_fused;
  // Hidden and attention dropout (GPT-3's 0.1): the residual junctions write
  // and read their masks.
  const bool with_dropout = csv.real(r, c.dropout) > 0;
  j.software.dropout = with_dropout;
  l.zero = 1;  // the distributed optimizer
  l.recompute =
      csv.at(r, c.recompute) == "selective" ? Checkpointing::selective : Checkpointing::none;
  out.setting = std::string("nemo-1.0") + (fp8 ? " FP8" : " bf16") +
                (ub ? ", userbuffers TP overlap" : "") + (bf16_states ? ", bf16 optimizer" : "") +
                (bf16_grads ? ", bf16 gradients" : "") +
                (fused_loss ? ", fused cross-entropy" : "") + (with_dropout ? ", dropout" : "");
  return out;
}

}  // namespace

ValidationSet nemo_24_07_validation_set(std::string_view text) {
  ValidationSet set{
      "nemo-24.07-h100",
      "NeMo 24.07 on DGX-H100, FP8",
      "tokens/s per GPU",
      "tokens/s",
      "NVIDIA NeMo performance summary, container 24.07 (NeMo docs, September 2024): "
      "GPT-3 5B-175B, Llama 2 7B-70B, Nemotron 8B-340B and Llama 3 8B/70B on 8-512 H100 SXM, "
      "FP8",
      "held out (no constant set from these rows); software nemo-1.0 (Apex's distributed Adam) "
      "with Transformer Engine's delayed scaling and every layer in FP8 (the recipe of the "
      "time); userbuffers TP overlap, recomputation, the optimizer's dtypes, the "
      "cross-entropy fusion and dropout as the launcher's configuration of each model set them",
      {}};
  const std::string file = "nemo/h100_pretraining_24_07.csv";
  const CsvText csv(text, file);
  const LauncherColumns columns(csv);
  const std::size_t container = csv.column("container"),
                    tokens = csv.column("tokens_per_s_per_gpu");
  for (std::size_t r = 0; r < csv.size(); ++r) {
    const LauncherRow row = launcher_row(csv, columns, r, true, file);
    const LayoutResult res = evaluate_layout(row.job, row.layout);
    if (!res.valid) throw std::invalid_argument(file + ": " + res.reason);
    set.rows.push_back({csv.at(r, container) + ": " +
                            layout_label(csv.at(r, columns.model), row.layout, row.job.n_chips),
                        res.tokens_per_second_per_chip, csv.real(r, tokens), row.setting});
  }
  return set;
}

namespace {

// The DGX Cloud Benchmarking rows as priced: every row, calibration rows too.
struct DgxcRow {
  LauncherRow row;
  double measured_tokens_per_second_per_gpu = 0;
  bool calibration = false;
  std::string label;
};

std::vector<DgxcRow> dgxc_rows(std::string_view text) {
  const std::string file = "dgxc/h100_pretraining_24_11.csv";
  const CsvText csv(text, file);
  const LauncherColumns columns(csv);
  const std::size_t container = csv.column("container"), precision = csv.column("precision"),
                    step = csv.column("step_seconds"), attention = csv.column("attention"),
                    role = csv.column("role");
  std::vector<DgxcRow> out;
  for (std::size_t r = 0; r < csv.size(); ++r) {
    const bool fp8 = is_fp8(csv.at(r, precision), at_line(file, csv, r));
    DgxcRow d;
    d.row = launcher_row(csv, columns, r, fp8, file);
    // NVTE_FUSED_ATTN=0 in a recipe's launch script (GPT-3 175B, Nemotron4
    // 340B): Transformer Engine runs the flash-attn package's
    // FlashAttention-2, not cuDNN's fused attention.
    if (csv.at(r, attention) == "flash-attn-2") {
      d.row.job.software.attention_kernel = AttentionKernel::flash_attention_2;
      d.row.setting += ", FlashAttention-2";
    }
    const TrainingJob& j = d.row.job;
    d.measured_tokens_per_second_per_gpu = per_gpu_tokens_per_second(j, csv.real(r, step));
    d.calibration = csv.at(r, role) == "calibration";
    d.label = csv.at(r, container) + " " + (fp8 ? "FP8" : "BF16") + ": " +
              layout_label(csv.at(r, columns.model), d.row.layout, j.n_chips);
    out.push_back(std::move(d));
  }
  return out;
}

// The rows of one role (the calibration row, or the held-out ones), priced.
void add_dgxc_rows(std::string_view text, bool calibration, ValidationSet& set) {
  for (const DgxcRow& d : dgxc_rows(text)) {
    if (d.calibration != calibration) continue;
    const LayoutResult res = evaluate_layout(d.row.job, d.row.layout);
    if (!res.valid) throw std::invalid_argument("dgxc/h100_pretraining_24_11.csv: " + res.reason);
    set.rows.push_back({d.label, res.tokens_per_second_per_chip,
                        d.measured_tokens_per_second_per_gpu, d.row.setting});
  }
}

}  // namespace

ValidationSet dgxc_h100_validation_set(std::string_view text) {
  ValidationSet set{
      "dgxc-h100",
      "DGX Cloud Benchmarking 24.11 on H100, BF16 and FP8",
      "tokens/s per GPU",
      "tokens/s",
      "NVIDIA DGX Cloud Benchmarking recipes, release 24.11.1: Llama 3.1 8B, 70B and 405B "
      "(NeMo 24.09), Nemotron4 15B and 340B (24.11), GPT-3 175B (24.05) on 8-2,048 H100 SXM, "
      "BF16 and FP8, each table's step time at each GPU count",
      "the single-node BF16 row (Llama 3.1 8B on 8 GPUs) set the H100's in-step bf16 GEMM "
      "fraction and is not listed; software nemo-1.0 with what each recipe's "
      "configuration and launch script set (TP overlap, recomputation, optimizer and gradient "
      "dtypes, the fused cross-entropy, dropout, FlashAttention-2 where cuDNN's attention is "
      "off); FP8 weights (fp8_params) are not modelled",
      {}};
  add_dgxc_rows(text, false, set);
  return set;
}

ValidationSet dgxc_h100_calibration_rows(std::string_view text) {
  ValidationSet set{"dgxc-h100-calibration",
                    "DGX Cloud Benchmarking 24.11 on H100: the calibration row",
                    "tokens/s per GPU",
                    "tokens/s",
                    "the same recipes' Llama 3.1 8B on 8 H100 in BF16 (one node)",
                    "the row the H100's in-step bf16 GEMM fraction was set from",
                    {}};
  add_dgxc_rows(text, true, set);
  return set;
}

namespace {

// NeMo 2.0's performance scripts as the DGX Cloud recipes ran them (the NeMo
// commit each recipe's setup.sh pins): Megatron Core with Transformer Engine
// and Megatron's distributed optimizer (fp32 master and moments); userbuffers
// TP overlap where TP > 1; bf16 gradient reduction (grad_reduce_in_fp32
// False in the recipes' performance mode and in their FP8 plugin); FP8 as
// Transformer Engine's delayed scaling on every layer (bf16_with_fp8_mixed,
// the scripts' default "ds"); the cross-entropy fusion the CSV names
// (Megatron Core's native fused kernels, or Transformer Engine's where the
// scripts set cross_entropy_fusion_impl "te"); Llama 3.1 405B's trainer
// counting the embedding and the loss in the pipeline split, the others'
// not; no recomputation. The megatron-core-fp8 preset with these.
struct Nemo2Columns {
  explicit Nemo2Columns(const CsvText& csv)
      : model(csv.column("model")),
        precision(csv.column("precision")),
        loss(csv.column("cross_entropy")),
        summary(csv) {}
  std::size_t model, precision, loss;
  SummaryLayout summary;
};

LauncherRow nemo2_row(const CsvText& csv, const Nemo2Columns& c, std::size_t r,
                      const std::string& file, const char* chip, const char* cluster) {
  LauncherRow out;
  TrainingJob& j = out.job;
  Layout& l = out.layout;
  c.summary.read(r, j, l);
  const std::string& name = csv.at(r, c.model);
  const std::string& loss = csv.at(r, c.loss);
  const std::string where = at_line(file, csv, r);
  const bool fp8 = is_fp8(csv.at(r, c.precision), where);
  if (loss != "native" && loss != "te")
    throw std::invalid_argument(where + ": cross_entropy must be native or te; got \"" + loss +
                                "\"");
  j.software = software_by_name("megatron-core-fp8");
  j.software.pipeline_split_counts_edges = false;
  if (name == "Llama3.1-405B") {
    // Llama31Config405B with the Llama 3.1 tokenizer: Meta's configuration,
    // not the 24.11 recipes' synthetic one.
    j.shape = model_preset_shape("Llama-3.1-405B");
    j.shape.vocab = padded_to(j.shape.vocab, l.tp);
    j.software.pipeline_split_counts_edges = true;
  } else if (const std::optional<ModelShape> shape = nemo_shape(name, l.tp)) {
    j.shape = *shape;
  } else {
    throw std::invalid_argument(where + ": no model named " + name);
  }
  j.chip = chip;
  j.network = cluster_by_name(cluster).network;
  j.software.fp8_matmuls = fp8;
  j.software.fp8_recipe = Fp8Recipe::delayed;
  j.software.fp32_grads = false;
  j.software.loss_kernel = loss == "te" ? LossKernel::te : LossKernel::megatron_fused;
  l.zero = 1;
  l.recompute = Checkpointing::none;
  out.setting = std::string("megatron-core-fp8") + (fp8 ? " FP8 delayed scaling" : " bf16") +
                ", bf16 gradients, " + (loss == "te" ? "TE" : "native") + " fused cross-entropy";
  return out;
}

// One DGX Cloud table of NeMo 2.0 runs, priced: "CONTAINER PRECISION SCALING:
// layout" against the table's step time as tokens/s per GPU.
void add_nemo2_rows(std::string_view text, const std::string& file, const char* chip,
                    const char* cluster, ValidationSet& set) {
  const CsvText csv(text, file);
  const Nemo2Columns columns(csv);
  const std::size_t container = csv.column("container"), scaling = csv.column("scaling"),
                    step = csv.column("step_seconds");
  for (std::size_t r = 0; r < csv.size(); ++r) {
    const LauncherRow row = nemo2_row(csv, columns, r, file, chip, cluster);
    const TrainingJob& j = row.job;
    const LayoutResult res = evaluate_layout(j, row.layout);
    if (!res.valid) throw std::invalid_argument(file + ": " + res.reason);
    const double measured = per_gpu_tokens_per_second(j, csv.real(r, step));
    set.rows.push_back({csv.at(r, container) + " " + (j.software.fp8_matmuls ? "FP8" : "BF16") +
                            " " + csv.at(r, scaling) + ": " +
                            layout_label(csv.at(r, columns.model), row.layout, j.n_chips),
                        res.tokens_per_second_per_chip, measured, row.setting});
  }
}

}  // namespace

ValidationSet dgxc_gb200_validation_set(std::string_view text) {
  ValidationSet set{
      "dgxc-gb200",
      "DGX Cloud Benchmarking 25.05 on GB200, BF16 and FP8",
      "tokens/s per GPU",
      "tokens/s",
      "NVIDIA DGX Cloud Benchmarking recipes, release 25.05: Nemotron4 340B (NeMo 25.04) and "
      "Llama 3.1 405B (25.04.01) on 128-512 GB200 (NVL72), BF16 and FP8, weak and strong "
      "scaling, each table's step time",
      "held out (no constant set from these rows); software megatron-core-fp8 with what NeMo "
      "2.0's performance scripts set (userbuffers TP overlap, Transformer Engine's fused "
      "cross-entropy, bf16 gradients, FP8 by delayed scaling, the 405B pipeline split counting "
      "the embedding and the loss); Nemotron4's CUDA graphs are not modelled",
      {}};
  add_nemo2_rows(text, "dgxc/gb200_pretraining_25_05.csv", "GB200", "gb200-nvl72", set);
  return set;
}

ValidationSet dgxc_h100_25_04_validation_set(std::string_view text) {
  ValidationSet set{
      "dgxc-h100-25.04",
      "DGX Cloud Benchmarking 25.04 on H100, BF16 and FP8",
      "tokens/s per GPU",
      "tokens/s",
      "NVIDIA DGX Cloud Benchmarking recipes, release 25.04.01: Llama 3.1 8B, 70B and 405B "
      "(NeMo 25.02.01) on 8-2,048 H100 SXM, BF16 and FP8, each table's step time",
      "held out (no constant set from these rows: the H100's bf16 fraction came from the 24.11 "
      "release's single-node row, 12.91 s where this release's same layout ran 12.27); software "
      "megatron-core-fp8 with what NeMo 2.0's performance scripts set (userbuffers TP overlap "
      "for 70B and 405B, Megatron Core's native fused cross-entropy, bf16 gradients, FP8 by "
      "delayed scaling, the 405B pipeline split counting the embedding and the loss); FP8 "
      "weights (fp8_params) are not modelled",
      {}};
  add_nemo2_rows(text, "dgxc/h100_pretraining_25_04.csv", "H100", "dgx-h100", set);
  return set;
}

}  // namespace napkin

// MaxText's published TPU throughput (December 2023): its v5e and v5p
// high-performance configurations, one slice and several joined over DCN.
#include <stdexcept>
#include <string>
#include <vector>

#include "algebra.h"
#include "csv.h"
#include "hardware.h"
#include "parallel.h"
#include "training_validation.h"
#include "validation_detail.h"

namespace napkin {

namespace {

// MaxText's decoder of December 2023 (models.py, DecoderLayer): a parallel
// block with one RMSNorm, MHA, a two-matrix ReLU MLP, no biases, the output
// layer the embedding's transpose.
ModelShape maxtext_shape(const CsvText& csv, std::size_t r) {
  ModelShape s;
  s.n_layers = csv.count(r, csv.column("layers"));
  s.d_model = csv.count(r, csv.column("emb_dim"));
  s.n_heads = s.n_kv_heads = csv.count(r, csv.column("num_heads"));
  s.d_head = csv.count(r, csv.column("head_dim"));
  s.d_ff = csv.count(r, csv.column("mlp_dim"));
  s.vocab = csv.count(r, csv.column("vocab_size"));
  s.gated = false;
  s.tied_embeddings = true;
  s.parallel_blocks = true;
  s.norms_per_layer = 1;
  return s;
}

// MaxText's count of a step's FLOPs (train.py, calculate_training_tflops):
// 6 × every parameter × the tokens, and the causal half of 12 × heads ×
// layers × head size × sequence² per sequence.
double maxtext_step_flops(const ModelShape& s, std::int64_t sequences, std::int64_t seq_len) {
  const double n = static_cast<double>(count_params(s).total);
  const double b = static_cast<double>(sequences), t = static_cast<double>(seq_len);
  return 6.0 * n * t * b +
         0.5 * 12.0 * static_cast<double>(s.n_heads * s.n_layers * s.d_head) * t * t * b;
}

}  // namespace

std::vector<ValidationSet> maxtext_validation_sets(std::string_view text) {
  const std::string outside =
      "held out (no constant set from these rows); software maxtext, each row its script's "
      "layout (FSDP over the slice's chips outside the tensor axis, the slices data-parallel "
      "replicas over DCN); the \"minimal\" remat policy (the weight matmuls' outputs kept) is "
      "priced as recompute=selective:core_attn+layernorm, which leaves out the re-run of the "
      "flash attention's forward (1-2 % of these steps); the software versions and the ICI "
      "slice shapes are not stated (a slice is a flat fast domain at the pod's per-chip "
      "bandwidth)";
  const std::string source =
      "google/maxtext MaxText/configs/v5e/README.md and v5p/README.md with each model's "
      "script and base.yml (commit 76bd53b, December 2023); tests/data/maxtext/SOURCE.md";
  std::vector<ValidationSet> sets{{"maxtext-tpu-v5e",
                                   "MaxText on TPU v5e, 1-32 slices of 256 chips",
                                   "TFLOP/s per chip (MaxText's count)",
                                   "TFLOP/s",
                                   source,
                                   outside,
                                   {}},
                                  {"maxtext-tpu-v5p",
                                   "MaxText on TPU v5p, 1-2 slices of 64-2,048 chips",
                                   "TFLOP/s per chip (MaxText's count)",
                                   "TFLOP/s",
                                   source,
                                   outside,
                                   {}}};
  const std::string file = "maxtext/tpu_v5_2023.csv";
  const CsvText csv(text, file);
  const std::size_t chip = csv.column("chip"), per_slice = csv.column("chips_per_slice"),
                    slices = csv.column("slices"), model = csv.column("model"),
                    pdb = csv.column("per_device_batch_size"),
                    seq = csv.column("max_target_length"), remat = csv.column("remat_policy"),
                    fsdp = csv.column("ici_fsdp_parallelism"),
                    tensor = csv.column("ici_tensor_parallelism"), mfu = csv.column("mfu_pct");
  for (std::size_t r = 0; r < csv.size(); ++r) {
    const std::string where = file + " line " + std::to_string(csv.line(r));
    const std::string& name = csv.at(r, chip);
    if (name != "TPU v5e" && name != "TPU v5p")
      throw std::invalid_argument(where + ": chip must be TPU v5e or TPU v5p; got '" + name + "'");
    const std::string& policy = csv.at(r, remat);
    if (policy != "full" && policy != "minimal")
      throw std::invalid_argument(where + ": remat_policy must be full or minimal; got '" + policy +
                                  "'");
    TrainingJob j;
    j.shape = maxtext_shape(csv, r);
    j.chip = name;
    const std::int64_t slice = csv.count(r, per_slice);
    j.n_chips = slice * csv.count(r, slices);
    j.seq_len = csv.count(r, seq);
    j.global_batch = csv.count(r, pdb) * j.n_chips;
    // The pod's links, with the slice as the fast domain: DCN between slices.
    j.network = cluster_by_name(name == "TPU v5e" ? "tpu-v5e-pod" : "tpu-v5p-pod").network;
    j.network->chips_per_node = slice;
    j.software = software_by_name("maxtext");
    Layout l;
    l.tp = csv.count(r, tensor);
    l.dp = j.n_chips / l.tp;
    l.zero = 3;
    l.shard = csv.count(r, fsdp);
    if (l.shard * l.tp != slice)
      throw std::invalid_argument(where +
                                  ": ici_fsdp_parallelism × ici_tensor_parallelism must "
                                  "be the slice's " +
                                  std::to_string(slice) + " chips");
    l.micro_batch = csv.count(r, pdb) * l.tp;  // a TP group's sequences, one micro-batch
    l.sequence_parallel = l.tp > 1;
    if (policy == "full") {
      l.recompute = Checkpointing::full;
    } else {
      l.recompute = Checkpointing::selective;
      l.recompute_modules = kRecomputeCoreAttn | kRecomputeLayernorm;
    }
    const LayoutResult res = evaluate_layout(j, l);
    if (!res.valid) throw std::invalid_argument(where + ": " + res.reason);
    const double predicted = maxtext_step_flops(j.shape, j.global_batch, j.seq_len) /
                             res.step_seconds / static_cast<double>(j.n_chips) / 1e12;
    const double measured = csv.real(r, mfu) / 100.0 * chip_by_name(name).peak_flops_per_s / 1e12;
    ValidationSet& set = sets[name == "TPU v5e" ? 0 : 1];
    set.rows.push_back({csv.at(r, slices) + "x " + csv.at(r, csv.column("slice_type")) + ": " +
                            validation_detail::layout_label(csv.at(r, model), l, j.n_chips),
                        predicted, measured, "maxtext", name});
  }
  return sets;
}

}  // namespace napkin

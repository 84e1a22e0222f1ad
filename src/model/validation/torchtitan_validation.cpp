// torchtitan's published runs: FSDP2 on 64 A100 (April 2024), the December
// 2024 and June 2025 H100 tables (FSDP2 with TP, PP and CP, compile, Float8,
// async TP) and Trainy's June 2025 H200 runs.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "csv.h"
#include "parallel.h"
#include "training_validation.h"
#include "validation_detail.h"

namespace napkin {

using validation_detail::layout_label;

namespace {

// A torchtitan table row's model: its layers, width, heads, KV heads, FFN
// width and vocabulary columns (head size = width ÷ heads).
ModelShape torchtitan_shape(const CsvText& csv, std::size_t r) {
  const std::int64_t h = csv.count(r, csv.column("d_model")), a = csv.count(r, csv.column("heads"));
  return ModelShape{
      csv.count(r, csv.column("layers")),   h,     csv.count(r, csv.column("d_ff")), a,
      csv.count(r, csv.column("kv_heads")), h / a, csv.count(r, csv.column("vocab"))};
}

}  // namespace

ValidationSet torchtitan_validation_set(std::string_view text) {
  ValidationSet set{"torchtitan-a100",
                    "torchtitan FSDP2 on 64 A100",
                    "tokens/s per GPU",
                    "tokens/s",
                    "torchtitan docs/performance.md (April 2024): Llama 3 8B/70B and Llama 2 "
                    "13B/70B with FSDP2 alone on 64 A100 80GB, eager (compile = false), "
                    "RMSNorm as each training configuration set it (norm_type: the Triton "
                    "fused_rmsnorm for 8B and 13B, eager ops for 70B)",
                    "the network is not published (the A100's usual node is taken); "
                    "torchtitan's \"selective layer\" checkpointing (every second block whole) "
                    "is predicted as the full recomputation of half the layers, its \"selective "
                    "op\" (every second matmul's output recomputed) as recompute=selective:op",
                    {}};
  const std::string file = "torchtitan/a100_fsdp2.csv";
  const CsvText csv(text, file);
  const std::size_t model = csv.column("model"), gpus = csv.column("gpus"),
                    seq = csv.column("seq_len"), local = csv.column("local_batch"),
                    ac = csv.column("activation_checkpointing"), norm = csv.column("norm_type"),
                    tokens = csv.column("tokens_per_s_per_gpu");
  for (std::size_t r = 0; r < csv.size(); ++r) {
    const std::string& checkpointing = csv.at(r, ac);
    if (checkpointing != "none" && checkpointing != "full" && checkpointing != "selective layer" &&
        checkpointing != "selective op")
      throw std::invalid_argument(file + " line " + std::to_string(csv.line(r)) +
                                  ": unknown activation_checkpointing '" + checkpointing + "'");
    const std::string& norm_type = csv.at(r, norm);
    if (norm_type != "rmsnorm" && norm_type != "fused_rmsnorm")
      throw std::invalid_argument(file + " line " + std::to_string(csv.line(r)) +
                                  ": norm_type must be rmsnorm or fused_rmsnorm; got '" +
                                  norm_type + "'");
    TrainingJob j;
    j.shape = torchtitan_shape(csv, r);
    j.chip = "A100-80";
    j.n_chips = csv.count(r, gpus);
    j.seq_len = csv.count(r, seq);
    j.global_batch = csv.count(r, local) * j.n_chips;
    j.software = software_by_name("fsdp");
    // The training configuration's norm_type: "rmsnorm" is torchtitan's own
    // RMSNorm as eager ops (models/norms.py), "fused_rmsnorm" its Triton
    // kernel.
    j.software.eager_norms = norm_type == "rmsnorm";
    Layout l;
    l.dp = j.n_chips;
    l.zero = 3;
    l.micro_batch = csv.count(r, local);
    l.sequence_parallel = false;
    l.recompute = checkpointing == "none" ? Checkpointing::none : Checkpointing::full;
    // "selective layer": every second block checkpointed whole
    // (--activation_checkpoint.selective_ac_option, default "2", "checkpoint
    // every other layer", config_manager.py at the tables' commit); without
    // pipeline stages which half does not matter: half the layers recomputed.
    if (checkpointing == "selective layer") l.recompute_layers = j.shape.n_layers / 2;
    if (checkpointing == "selective op") {
      l.recompute = Checkpointing::selective;
      l.recompute_modules = kRecomputeOp;
    }
    const LayoutResult res = evaluate_layout(j, l);
    const double predicted = res.tokens_per_second_per_chip;
    set.rows.push_back({layout_label(csv.at(r, model), l, j.n_chips), predicted,
                        csv.real(r, tokens),
                        j.software.eager_norms ? "fsdp, eager RMSNorm" : "fsdp"});
  }
  return set;
}

namespace {

// What a torchtitan table ran on, and what changed in torchtitan between
// its tables.
struct TorchtitanTable {
  // Grand Teton's 96 GB HBM2e H100 at 500 W, on the chip's usual node, unless
  // the table says otherwise.
  const char* chip = "H100-HBM2e";
  // The loss outside torch.compile (December 2024's train.py: "compiling
  // loss function causes CUDA errors, turning off for now"); by June 2025
  // compiled with the model.
  bool loss_eager = false;
  // The op-level policy's save list keeps aten.abs too (December 2024,
  // parallelize_llama.py: "save the result of max(abs(tensor))"): with Float8
  // every cast's absolute value is kept, which Napkin does not price; by June
  // 2025 the list keeps max alone.
  bool op_policy_keeps_abs = false;
  // RMSNorm as eager ops where not compiled (TrainingSoftware::eager_norms):
  // December 2024's configurations all set norm_type = "rmsnorm", torchtitan's
  // own RMSNorm class; by June 2025 nn.RMSNorm, unfused in eager PyTorch
  // before 2.9.
  bool eager_norms = true;
};
constexpr TorchtitanTable kDecember2024{"H100-HBM2e", true, true, true};
constexpr TorchtitanTable kJune2025{"H100-HBM2e", false, false, true};
// Trainy's runs on WhiteFiber (June 2025): HGX H200 nodes, 400 Gb/s per GPU.
constexpr TorchtitanTable kH200June2025{"H200", false, false, true};

// torchtitan's software for a table: each block compiled where compile is on; in December
// 2024 the loss stayed eager (train.py: "compiling loss function causes CUDA
// errors, turning off for now"), by June 2025 it is compiled with the model
// (components/loss.py, build_cross_entropy_loss). Float8 linears with
// torchao's dynamic (tensorwise) scaling.
TrainingSoftware torchtitan_software(bool compiled, bool fp8, const TorchtitanTable& table) {
  TrainingSoftware sw = software_by_name(compiled ? "fsdp-compile" : "fsdp");
  if (table.loss_eager) sw.eager_loss = true;
  sw.eager_norms = table.eager_norms && !compiled;
  // torch of December 2024 and June 2025: FSDP2's root (the whole model,
  // wrapped last by parallelize_llama.py's apply_fsdp) is never resharded
  // after forward, so the embedding stays gathered with the output layer.
  sw.zero3_root_gathered = true;
  // torchtitan's train.py until October 2025 returns the pipeline's outputs
  // (pp_schedule.step without return_outputs=False), so the last stage keeps
  // every micro-batch's logits until the step ends.
  sw.pipeline_keeps_outputs = true;
  sw.fp8_matmuls = fp8;
  if (fp8) sw.fp8_recipe = Fp8Recipe::tensorwise;
  return sw;
}

// One predictable row of a torchtitan table: its job, layout and label.
struct TorchtitanRow {
  std::size_t row = 0;
  TrainingJob job;
  Layout layout;
  std::string label, setting;
};

// The rows Napkin can price: full checkpointing, or the op-level policy
// (with Float8 only where its save list does not keep abs); not the
// interleaved row, whose stages per rank the table does not state, nor
// Float8's row-wise scaling (float8 "rowwise"), which Napkin has no recipe
// for. Float8 "yes" is torchao's default, the tensorwise recipe. Async TP
// (micro-pipelined all-gather-matmul and matmul-reduce-scatter) is not
// modelled: its TP collectives are priced as blocking, its buffers not at all.
std::vector<TorchtitanRow> torchtitan_rows(const CsvText& csv, const std::string& file,
                                           const TorchtitanTable& table) {
  const std::size_t model = csv.column("model"), gpus = csv.column("gpus"),
                    seq = csv.column("seq_len"), local = csv.column("local_batch"),
                    tp = csv.column("tp"), pp = csv.column("pp"), cp = csv.column("cp"),
                    dp = csv.column("dp"), schedule = csv.column("schedule"),
                    ac = csv.column("activation_checkpointing"), async_tp = csv.column("async_tp"),
                    compile = csv.column("compile"), float8 = csv.column("float8");
  std::vector<TorchtitanRow> out;
  for (std::size_t r = 0; r < csv.size(); ++r) {
    const std::string& scaling = csv.at(r, float8);
    if (scaling != "no" && scaling != "yes" && scaling != "tensorwise" && scaling != "rowwise")
      throw std::invalid_argument(file + ", line " + std::to_string(csv.line(r)) +
                                  ": float8 must be no, yes, tensorwise or rowwise; got \"" +
                                  scaling + "\"");
    const bool op = csv.at(r, ac) == "selective op", fp8 = scaling != "no";
    if ((csv.at(r, ac) != "full" && !(op && !(fp8 && table.op_policy_keeps_abs))) ||
        csv.at(r, schedule) == "Interleaved 1F1B" || scaling == "rowwise")
      continue;
    TorchtitanRow row;
    row.row = r;
    TrainingJob& j = row.job;
    j.shape = torchtitan_shape(csv, r);
    j.chip = table.chip;
    j.n_chips = csv.count(r, gpus);
    j.seq_len = csv.count(r, seq);
    const bool compiled = csv.at(r, compile) == "yes";
    const bool async = csv.at(r, async_tp) == "yes";
    j.software = torchtitan_software(compiled, fp8, table);
    Layout& l = row.layout;
    l.tp = csv.count(r, tp);
    l.pp = csv.count(r, pp);
    l.cp = csv.count(r, cp);
    l.dp = csv.count(r, dp);
    l.zero = 3;
    // torch.distributed.pipelining's default: as many micro-batches as stages.
    l.micro_batch = csv.count(r, local) / l.pp;
    j.global_batch = csv.count(r, local) * l.dp;
    l.sequence_parallel = l.tp > 1;
    l.recompute = op ? Checkpointing::selective : Checkpointing::full;
    if (op) l.recompute_modules = kRecomputeOp;
    row.label = layout_label(csv.at(r, model), l, j.n_chips) + (fp8 ? " Float8" : "") +
                (async ? " async TP" : "") + (compiled ? "" : " eager");
    row.setting = std::string(compiled ? "fsdp-compile" : "fsdp") + (fp8 ? ", FP8" : "") +
                  (table.loss_eager ? ", loss eager" : "") +
                  (j.software.eager_norms ? ", eager RMSNorm" : "");
    out.push_back(std::move(row));
  }
  return out;
}

// Each predictable row of a torchtitan table, its throughput predicted.
void add_torchtitan_throughput(std::string_view text, const std::string& file,
                               const TorchtitanTable& table, ValidationSet& set) {
  const CsvText csv(text, file);
  const std::size_t tokens = csv.column("tokens_per_s_per_gpu");
  for (const TorchtitanRow& row : torchtitan_rows(csv, file, table)) {
    const LayoutResult res = evaluate_layout(row.job, row.layout);
    if (!res.valid) throw std::invalid_argument(file + ": " + res.reason);
    set.rows.push_back(
        {row.label, res.tokens_per_second_per_chip, csv.real(row.row, tokens), row.setting});
  }
}

// Each predictable row of a torchtitan table, its largest rank's peak
// reserved memory predicted.
void add_torchtitan_memory(std::string_view text, const std::string& file,
                           const TorchtitanTable& table, ValidationSet& set) {
  const CsvText csv(text, file);
  const std::size_t memory = csv.column("memory_gib");
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  for (const TorchtitanRow& row : torchtitan_rows(csv, file, table)) {
    // The caching allocator's reserved memory: the tensors and its unused
    // blocks, not the CUDA context or NCCL's own buffers.
    std::int64_t peak = 0;
    for (const StageMemory& m : memory_by_stage(row.job, row.layout))
      peak = std::max(peak, m.total_bytes - m.runtime_bytes - m.comm_buffers_bytes);
    set.rows.push_back(
        {row.label, static_cast<double>(peak) / kGiB, csv.real(row.row, memory), row.setting});
  }
}

}  // namespace

ValidationSet torchtitan_h100_memory_set(std::string_view text) {
  ValidationSet set{"torchtitan-h100-memory",
                    "torchtitan on H100, December 2024: peak reserved memory",
                    "peak memory per GPU",
                    "GiB",
                    "torchtitan benchmarks/llama3_h100_202412_torchtitan.md (commit 9dec370): "
                    "Llama 3.1 8B, 70B and 405B with FSDP2, TP, PP and CP, torch.compile and "
                    "Float8, full or op-level selective activation checkpointing; the largest "
                    "rank's peak reserved memory",
                    "async TP (the 405B rows and the second 70B row): its symmetric-memory "
                    "buffers are not modelled (the 70B run measured 4.3 GiB less with it than "
                    "without); the rows with torchtitan's op-level selective checkpointing and "
                    "Float8 (its save list of that date keeps every cast's absolute value too) "
                    "and the interleaved row (its stages per rank are not stated) are not "
                    "predicted",
                    {},
                    true};
  add_torchtitan_memory(text, "torchtitan/h100_202412.csv", kDecember2024, set);
  return set;
}

ValidationSet torchtitan_h100_throughput_set(std::string_view text) {
  ValidationSet set{"torchtitan-h100",
                    "torchtitan on H100, December 2024: throughput",
                    "tokens/s per GPU",
                    "tokens/s",
                    "torchtitan benchmarks/llama3_h100_202412_torchtitan.md (commit 9dec370): "
                    "Llama 3.1 8B, 70B and 405B with FSDP2, TP, PP and CP, torch.compile and "
                    "Float8, full or op-level selective activation checkpointing",
                    "held out (no constant set from these rows); the runs' Grand Teton H100s "
                    "are H100-HBM2e (96 GB at 2.4 TB/s, 500 W), the SXM's peaks taken to 500 W "
                    "by the datasheets' SXM and NVL points (0.903), not a measurement; the "
                    "network is the DGX H100's; async TP is priced as blocking TP collectives "
                    "(the full overlap of Transformer Engine's userbuffers would add 19 % to the "
                    "70B row, which gained 6 %); PyTorch's context-parallel attention is priced "
                    "as a ring at the kernel's rate, and its rows read 6-50 % fast; the rows of "
                    "the memory set",
                    {}};
  add_torchtitan_throughput(text, "torchtitan/h100_202412.csv", kDecember2024, set);
  return set;
}

ValidationSet torchtitan_h100_2025_throughput_set(std::string_view text) {
  ValidationSet set{"torchtitan-h100-2025",
                    "torchtitan on H100, June 2025: vanilla and async TP",
                    "tokens/s per GPU",
                    "tokens/s",
                    "torchtitan benchmarks/asyncTP_llama3_h100_2025-06_torchtitan.md (commit "
                    "820504e): Llama 3.1 70B on 256 and 8B on 64 Grand Teton H100 with FSDP2 "
                    "and TP 8, torch.compile, bf16 and Float8, each without and with async TP",
                    "held out (no constant set from these rows); as the December 2024 set, the "
                    "loss compiled with the model as torchtitan did by then; async TP is priced "
                    "as blocking TP collectives, so each pair of rows has one prediction; the "
                    "row-wise Float8 rows (no such recipe in Napkin) are not predicted",
                    {}};
  add_torchtitan_throughput(text, "torchtitan/h100_202506_async_tp.csv", kJune2025, set);
  return set;
}

namespace {

const char* const kH200Source =
    "torchtitan benchmarks/llama3-8b_h200_202506_trainy-whitefiber.md (torchtitan e7c0cae, June "
    "2025): Llama 3.1 8B with FSDP2 over 32 and 64 H200 (8 per node, 400 Gb/s per GPU), local "
    "batch 2, torch.compile, Float8 tensorwise, op-level checkpointing (the configuration's "
    "default); measured at the 100th step";
const char* const kH200Outside =
    "held out (no constant set from these rows); the chip is the H200 SXM datasheet's (its "
    "power limit is not stated), on the HGX H200's network; FSDP's Float8 all-gather (weights "
    "gathered in FP8) is priced as a bf16 gather";

}  // namespace

ValidationSet torchtitan_h200_throughput_set(std::string_view text) {
  ValidationSet set{"torchtitan-h200",
                    "torchtitan on H200, June 2025: throughput",
                    "tokens/s per GPU",
                    "tokens/s",
                    kH200Source,
                    kH200Outside,
                    {}};
  add_torchtitan_throughput(text, "torchtitan/h200_202506_trainy.csv", kH200June2025, set);
  return set;
}

ValidationSet torchtitan_h200_memory_set(std::string_view text) {
  ValidationSet set{"torchtitan-h200-memory",
                    "torchtitan on H200, June 2025: peak reserved memory",
                    "peak memory per GPU",
                    "GiB",
                    kH200Source,
                    kH200Outside,
                    {},
                    true};
  add_torchtitan_memory(text, "torchtitan/h200_202506_trainy.csv", kH200June2025, set);
  return set;
}

}  // namespace napkin

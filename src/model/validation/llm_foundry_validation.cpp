// MosaicML's MPT throughput tables (llm-foundry's training benchmarks):
// PyTorch FSDP under Composer on A100 and H100, 125M to 70B parameters,
// 512 to 65,536 tokens per sequence.
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "csv.h"
#include "gpt_shape.h"
#include "parallel.h"
#include "training_validation.h"
#include "validation_detail.h"

namespace napkin {

namespace {

// What llm-foundry ran for these tables (scripts/train/benchmarking at the
// tables' commits, and its MPT model code): PyTorch FSDP (FSDP1: each block's
// parameters one FlatParameter, gathered into the buffer they view, so none
// of FSDP2's copies), eager, per-layer gathers prefetched one layer ahead;
// MPT's layer as one fused QKV projection, LayerNorm and GELU (one kernel
// each: no rotary, no separate projections to add); flash-attn's fused
// cross-entropy (one kernel each way); attention by attn_impl, Triton's
// FlashAttention (the benchmark script's default until 2024: half
// FlashAttention-2's rate) or FlashAttention-2 (flash-attn 2.4.2, the
// large-scale H100 table); FSDP mixed precision DEFAULT (bf16 gathers, fp32
// gradient reduction) or PURE (both in bf16).
TrainingSoftware llm_foundry_software(bool triton_attention, bool pure_bf16) {
  TrainingSoftware sw = software_by_name("fsdp");
  sw.fsdp2_copies = false;
  sw.eager_elementwise = false;
  sw.eager_loss = false;
  sw.loss_kernel = LossKernel::compiled;
  sw.attention_kernel =
      triton_attention ? AttentionKernel::flash_attention_1 : AttentionKernel::flash_attention_2;
  sw.fp32_grads = !pure_bf16;
  sw.framework = "PyTorch FSDP1 (MosaicML Composer, llm-foundry)";
  return sw;
}

// `value` of `column` when it is one of `accepted`; else throws naming the
// line, the column and what it may be ("a, b or c").
const std::string& one_of(const std::string& value, const std::string& where, const char* column,
                          std::initializer_list<std::string_view> accepted) {
  std::string listed;
  std::size_t k = 0;
  for (std::string_view a : accepted) {
    if (value == a) return value;
    listed += std::string(k == 0 ? "" : k + 1 == accepted.size() ? " or " : ", ") + std::string(a);
    ++k;
  }
  throw std::invalid_argument(where + ", column " + column + ": '" + value + "' is not " + listed);
}

const char* chip_of(const std::string& gpu) {
  return gpu == "h100_80gb" ? "H100" : gpu == "a100_80gb" ? "A100-80" : "A100-40";
}

}  // namespace

std::vector<ValidationSet> llm_foundry_validation_sets(std::string_view text) {
  const std::string source =
      "MosaicML llm-foundry, scripts/train/benchmarking/README.md (commit 5e85bd6, January "
      "2024): MPT 125M-70B trained with PyTorch FSDP under Composer, bf16, 512-65,536 tokens "
      "per sequence; tests/data/llm_foundry/SOURCE.md";
  const std::string outside =
      "held out (no constant set from these rows); the closest preset (fsdp) with what "
      "llm-foundry ran: FSDP1's flat parameters, MPT's fused layer, flash-attn's fused loss, "
      "Triton FlashAttention at half FlashAttention-2's rate where the benchmark script's "
      "default ran it; the H100 network is not stated (the DGX H100's is taken), the A100 "
      "tables' is 1,600 Gb/s per node (the DGX A100's); MPT's learned positions (one table "
      "lookup) are not counted";
  ValidationSet a100{"llm-foundry-a100",
                     "MPT on A100 (llm-foundry benchmarks)",
                     "tokens/s per GPU",
                     "tokens/s",
                     source,
                     outside,
                     {}};
  ValidationSet h100{"llm-foundry-h100",
                     "MPT on H100 (llm-foundry benchmarks)",
                     "tokens/s per GPU",
                     "tokens/s",
                     source,
                     outside,
                     {}};
  const std::string file = "llm_foundry/mpt_throughput.csv";
  const CsvText csv(text, file);
  const std::size_t model = csv.column("model"), layers = csv.column("layers"),
                    hidden = csv.column("d_model"), heads = csv.column("heads"),
                    seq = csv.column("seq_len"), gpus = csv.column("gpus"), gpu = csv.column("gpu"),
                    mb = csv.column("micro_batch"), batch = csv.column("global_batch"),
                    tokens = csv.column("tokens_per_s_per_gpu"), mp = csv.column("mp_mode"),
                    sharding = csv.column("sharding"), ac = csv.column("activation_checkpointing"),
                    attn = csv.column("attn_impl");
  for (std::size_t r = 0; r < csv.size(); ++r) {
    const std::string where = file + " line " + std::to_string(csv.line(r));
    const std::string& impl = one_of(csv.at(r, attn), where, "attn_impl", {"triton", "flash"});
    const std::string& shard =
        one_of(csv.at(r, sharding), where, "sharding", {"FULL_SHARD", "SHARD_GRAD_OP"});
    const std::string& gpu_name =
        one_of(csv.at(r, gpu), where, "gpu", {"h100_80gb", "a100_80gb", "a100_40gb"});
    TrainingJob j;
    j.shape = gpt_shape(csv.count(r, layers), csv.count(r, hidden), csv.count(r, heads), 50368);
    j.chip = chip_of(gpu_name);
    j.n_chips = csv.count(r, gpus);
    j.seq_len = csv.count(r, seq);
    j.global_batch = csv.count(r, batch);
    j.software = llm_foundry_software(impl == "triton", csv.at(r, mp) == "PURE");
    Layout l;
    l.dp = j.n_chips;
    l.zero = shard == "FULL_SHARD" ? 3 : 2;
    l.micro_batch = csv.count(r, mb);
    l.sequence_parallel = false;
    l.recompute = csv.at(r, ac) == "True" ? Checkpointing::full : Checkpointing::none;
    const LayoutResult res = evaluate_layout(j, l);
    if (!res.valid) throw std::invalid_argument(where + ": " + res.reason);
    ValidationSet& set = std::string(j.chip) == "H100" ? h100 : a100;
    set.rows.push_back({"MPT-" + csv.at(r, model) + " " + j.chip + " s=" + csv.at(r, seq) + " " +
                            validation_detail::layout_label("", l, j.n_chips).substr(1),
                        res.tokens_per_second_per_chip, csv.real(r, tokens),
                        std::string("llm-foundry (fsdp, ") + (impl == "triton" ? "Triton" : "FA2") +
                            " attention, " + csv.at(r, mp) + ")"});
  }
  return {a100, h100};
}

}  // namespace napkin

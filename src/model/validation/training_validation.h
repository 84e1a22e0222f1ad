// The training-side public data sets, predicted: Megatron-LM's published
// tables and the vTrain authors' measured iterations. Each row is evaluated
// with what its source states — model, chips, layout, framework, cluster — and
// nothing else; what a source leaves out (Narayanan et al.'s micro-batch) is
// searched as a user's plan would search it, and the set says so.
#pragma once

#include <string_view>
#include <vector>

#include "validation_set.h"

namespace napkin {

// From tests/data/parallelism/published_runs.csv: "korthikanti-2022-table5"
// (iteration seconds, software megatron-2022) and "narayanan-2021-table1"
// (TFLOP/s per GPU counting recomputation, software megatron-2021).
std::vector<ValidationSet> megatron_validation_sets(std::string_view published_runs_csv);

// From tests/data/vtrain: "vtrain-single-node" and "vtrain-multi-node"
// (iteration milliseconds, software megatron-deepspeed, the vTrain cluster).
std::vector<ValidationSet> vtrain_validation_sets(std::string_view single_node_csv,
                                                  std::string_view multi_node_csv);

// From tests/data/megatron_bridge/h100_pretraining.csv:
// "megatron-bridge-h100" (tokens/s per GPU): NVIDIA's published Llama 3 70B
// and 3.1 405B pre-training runs on DGX-H100 in FP8, software megatron-core-fp8
// (the recipes' userbuffers TP overlap and FP8), no recomputation, as the
// recipes set.
ValidationSet megatron_bridge_validation_set(std::string_view h100_pretraining_csv);
// From tests/data/megatron_bridge/b200_pretraining.csv: "megatron-bridge-b200",
// the same recipe's Llama 3.1 405B rows on DGX-B200 (held out: no B200
// constant was set from them).
ValidationSet megatron_bridge_b200_validation_set(std::string_view b200_pretraining_csv);
// From tests/data/megatron_bridge/gb200_pretraining.csv:
// "megatron-bridge-gb200", the same recipe's Llama 3.1 405B rows on 256
// GB200 in NVL72 racks (held out: GB200 is B200's die at its own datasheet
// peaks, with B200's in-step fractions scaled by GB200's MAMF rows).
ValidationSet megatron_bridge_gb200_validation_set(std::string_view gb200_pretraining_csv);
// From tests/data/megatron_bridge/gb300_pretraining.csv:
// "megatron-bridge-gb300", the same model on 256 GB300 in NVL72 racks (held
// out: Blackwell Ultra at its datasheet peaks with GB200's fractions).
ValidationSet megatron_bridge_gb300_validation_set(std::string_view gb300_pretraining_csv);

// From tests/data/megatron_bridge/h100_moe_pretraining.csv:
// "megatron-bridge-moe-h100" (tokens/s per GPU), the same summaries'
// Qwen3-235B-A22B rows on 256 H100 (EP 32 folded over TP 2), with the
// recipe's EP overlap and without its TP overlap; held out.
ValidationSet megatron_bridge_moe_validation_set(std::string_view h100_moe_pretraining_csv);

// From tests/data/nemo/h100_pretraining_24_07.csv: "nemo-24.07-h100"
// (tokens/s per GPU), NVIDIA's NeMo 24.07 pre-training table on DGX-H100 in
// FP8: GPT-3, Llama 2, Nemotron and Llama 3 from 5B to 340B, each with its
// table's layout and batch and its launcher configuration's TP overlap and
// recomputation, delayed scaling; held out.
ValidationSet nemo_24_07_validation_set(std::string_view h100_pretraining_csv);

// From tests/data/dgxc/h100_pretraining_24_11.csv: "dgxc-h100" (tokens/s per
// GPU), NVIDIA's DGX Cloud Benchmarking recipes of release 24.11 on H100,
// BF16 and FP8 (Llama 3.1, Nemotron4, GPT-3 175B; 16 to 2,048 GPUs), each
// with its recipe's layout, batch and configuration; held out, but for the
// single-node BF16 row that set the H100's bf16 GEMM fraction, which
// dgxc_h100_calibration_rows returns instead.
ValidationSet dgxc_h100_validation_set(std::string_view h100_pretraining_csv);
ValidationSet dgxc_h100_calibration_rows(std::string_view h100_pretraining_csv);
// From tests/data/dgxc/gb200_pretraining_25_05.csv: "dgxc-gb200" (tokens/s per
// GPU), the 25.05 release's GB200 tables, held out.
ValidationSet dgxc_gb200_validation_set(std::string_view gb200_pretraining_csv);
// From tests/data/dgxc/h100_pretraining_25_04.csv: "dgxc-h100-25.04" (tokens/s
// per GPU), the 25.04.01 release's Llama 3.1 tables on H100 (NeMo 2.0), held out.
ValidationSet dgxc_h100_25_04_validation_set(std::string_view h100_pretraining_csv);

// From tests/data/megatron_lm/h100_scaling_r0_8.csv: "megatron-core-0.8-h100"
// (TFLOP/s per GPU, Megatron's count), the Megatron-LM README's GPT weak- and
// strong-scaling runs on H100 in bf16 (software tp-overlap), the layout's
// unpublished axes searched; held out.
ValidationSet megatron_lm_h100_validation_set(std::string_view h100_scaling_csv);

// From tests/data/maxtext/tpu_v5_2023.csv: "maxtext-tpu-v5e" and
// "maxtext-tpu-v5p" (TFLOP/s per chip, MaxText's count), Google's MaxText
// high-performance configurations of December 2023 on one slice and on
// several joined over DCN, each row its script's layout and remat policy,
// software maxtext; held out.
std::vector<ValidationSet> maxtext_validation_sets(std::string_view tpu_v5_2023_csv);

// From tests/data/torchtitan/a100_fsdp2.csv: "torchtitan-a100" (tokens/s per
// GPU), torchtitan's first published FSDP2 runs on 64 A100 (ZeRO-3 alone,
// software fsdp, eager); the rows with torchtitan's own selective
// checkpointing policies are left out.
ValidationSet torchtitan_validation_set(std::string_view a100_fsdp2_csv);
// From tests/data/torchtitan/h100_202412.csv: "torchtitan-h100-memory" (the
// largest rank's peak reserved memory, GiB), torchtitan's December 2024 H100
// runs with full checkpointing (software fsdp-compile with that commit's eager
// loss, FP8); held out: no constant was set from them. A prediction below the
// measurement is the optimistic one.
ValidationSet torchtitan_h100_memory_set(std::string_view h100_202412_csv);
// The same rows' throughput, "torchtitan-h100" (tokens/s per GPU); held out.
ValidationSet torchtitan_h100_throughput_set(std::string_view h100_202412_csv);
// From tests/data/torchtitan/h100_202506_async_tp.csv: "torchtitan-h100-2025"
// (tokens/s per GPU), torchtitan's June 2025 async-TP tables on the same
// H100s, vanilla and async TP; held out.
ValidationSet torchtitan_h100_2025_throughput_set(std::string_view h100_202506_csv);
// From tests/data/torchtitan/h200_202506_trainy.csv: "torchtitan-h200"
// (tokens/s per GPU) and "torchtitan-h200-memory" (the largest rank's peak
// reserved memory, GiB), Trainy's Llama 3.1 8B runs on 32 and 64 H200 with
// torchtitan (FSDP2, compile, Float8, op-level checkpointing); held out.
ValidationSet torchtitan_h200_throughput_set(std::string_view h200_202506_csv);
ValidationSet torchtitan_h200_memory_set(std::string_view h200_202506_csv);

// From tests/data/llm_foundry/mpt_throughput.csv: "llm-foundry-a100" and
// "llm-foundry-h100" (tokens/s per GPU), MosaicML's MPT benchmarks with
// PyTorch FSDP under Composer, each row with what llm-foundry ran (FSDP1,
// Triton or FlashAttention-2 attention, its mixed precision); held out.
std::vector<ValidationSet> llm_foundry_validation_sets(std::string_view mpt_throughput_csv);

}  // namespace napkin

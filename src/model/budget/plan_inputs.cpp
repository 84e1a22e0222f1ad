#include "plan_inputs.h"

#include <array>
#include <stdexcept>
#include <string>

namespace napkin {

namespace {

const std::array kInputs{
    InputInfo{"interruptions_per_1000_chip_days", "--interruptions-per-1000-chip-days",
              "Interruptions", "per 1,000 chip-days",
              "Unexpected job interruptions per 1,000 chip-days; the whole job stops at each. "
              "Default 0.474: Llama 3 405B saw 419 unexpected interruptions in 54 days on 16,384 "
              "H100 (Dubey et al. 2024, The Llama 3 Herd of Models, sec. 3.3.4)."},
    InputInfo{
        "restart_minutes", "--restart-min", "Restart", "minutes",
        "Minutes from a crash to training again: detect, reschedule, reload the last "
        "checkpoint, warm up. Default 10, the seed's hardened setup (Claim 13; its fragile one "
        "takes 45); with 15-minute checkpoints it reproduces Llama 3's >90 % effective "
        "training time at 16,384 GPUs."},
    InputInfo{"checkpoint_interval_minutes", "--checkpoint-min", "Checkpoint every", "minutes",
              "Minutes of training between checkpoints; a crash redoes half an interval on "
              "average (seed Claim 13). Default 15, the seed's hardened setup. The optimum is "
              "Young/Daly's sqrt(2 x write time x MTBF)."},
    InputInfo{"checkpoint_write_minutes", "--checkpoint-write-min", "Checkpoint write", "minutes",
              "Minutes to persist one checkpoint (bf16 weights, fp32 master weights and "
              "optimizer moments). Empty: checkpoint bytes / (storage bandwidth per chip x "
              "chips)."},
    InputInfo{"storage_bytes_per_s_per_chip", "--storage-gb-per-s-per-chip", "Storage per chip",
              "bytes/s per training chip",
              "Write bandwidth of the checkpoint store per training chip (GB/s, 10^9 bytes/s). "
              "Default 0.122 GB/s: "
              "Llama 3's Tectonic store sustains 2 TB/s for 16,384 GPUs (sec. 3.3.1)."},
    InputInfo{"checkpoint_mode", "--checkpoint-async", "Asynchronous checkpoints", "",
              "Synchronous: training stops while a checkpoint is written. Asynchronous: training "
              "goes on while it is written, and a crash loses the work since the last finished "
              "checkpoint (the device-to-host snapshot is taken as free)."},
    InputInfo{"mfu", "--mfu", "MFU", "fraction of peak",
              "Model FLOPs utilization (fraction of peak): useful 6ND FLOPs ÷ (chips × peak × "
              "time), crashes excluded. Llama 3 405B reports 38–43 % on H100 (Table 4); the seed "
              "assumes 40 %. 35–55 % is normal at scale. A range low:likely:high is sampled."},
    InputInfo{"price_per_chip_hour_dollars", "--price", "Price", "$ per chip-hour",
              "Rental price of one chip for one hour ($ per chip-hour), paid for the whole "
              "wall-clock including restarts: rental $ = chips × days × 24 × price. Default $2.50 "
              "for H100 (seed Phase 00 ch. 11)."},
    InputInfo{"tokens_available", "--tokens-available", "Unique tokens", "tokens",
              "Unique (deduplicated) training tokens the corpus holds; beyond them data repeat "
              "and are worth less (Muennighoff et al. 2023, R_D* = 15.4). Default 15T (Llama 3 "
              "pre-trained on 15.6T). The 'data available' check needs D below it."},
    InputInfo{"range_shape", "--range-shape", "Range shape", "",
              "Triangular: low and high are hard bounds, likely the mode. Log-normal: likely is "
              "the median, low and high the 10th and 90th percentiles."},
    InputInfo{"monte_carlo_seed", "--seed", "Seed", "",
              "Seed of the 10,000 Monte Carlo draws (xoshiro256**): the same seed gives the same "
              "percentiles on every machine."},
    InputInfo{"plan_mode", "--params", "Mode", "",
              "Budget: chips x days -> the model to train. Train this model: a chosen model of N "
              "parameters on D tokens -> days on this cluster, dollars, energy, loss."},
    InputInfo{"train_tokens", "--tokens", "Training tokens", "tokens",
              "Tokens D to train the chosen model on (train this model); 0 = tokens per "
              "parameter x N, which a control shows until a number is typed."},
    InputInfo{"serving_chips", "--serving-chips", "Serving chips", "chips",
              "Chips of one serving deployment (chips), split as TP × PP (× EP). The largest "
              "model whose turn meets the latency budget on them caps What I would train (seed "
              "Claim 14, Phase 03 ch. 6)."},
    InputInfo{"serving_limit", "--no-serving-limit", "Serving limit", "",
              "Whether What I would train respects the largest model that meets the serving "
              "latency budget."},
};

}  // namespace

std::span<const InputInfo> plan_input_info() { return kInputs; }

const InputInfo& plan_input_info(std::string_view key) {
  for (const InputInfo& i : kInputs)
    if (i.key == key) return i;
  throw std::invalid_argument("unknown planning input \"" + std::string(key) + "\"");
}

}  // namespace napkin

// The budget memo's precision read-outs: what serving the weights below bf16
// costs in loss (Kumar et al. 2024's post-training quantization law) and what
// FP8 training changes (the chip's FP8 peak, and the loss of the effective
// parameter count Kumar et al. 2024 fit for 8-bit training).
#pragma once

#include "budget.h"
#include "hardware.h"

namespace napkin {

// Fills r.quality_penalty_nats / _text (for r.recommended.run, served at
// r.inputs.serving_weights; the constants given, else the built-in ones) and
// r.train_gemm_peak_flops_per_s, r.train_precision_penalty_nats /
// r.train_precision_text (FP8 training against bf16 under `law`).
void precision_read_outs(BudgetReport& r, const Chip& chip, const LossLaw& law);

}  // namespace napkin

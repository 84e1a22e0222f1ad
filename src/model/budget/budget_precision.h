// The budget memo's precision read-outs: what serving the weights below bf16
// costs in loss (Kumar et al. 2024's post-training quantization law) and what
// FP8 training changes (the chip's FP8 peak, and the loss of the effective
// parameter count Kumar et al. 2024 fit for 8-bit training).
#pragma once

#include "budget.h"
#include "hardware.h"

namespace napkin {

// The law a plan trained at `precision` forecasts with: `law` (fitted on
// bf16 runs) as is for mixed bf16 and fp32, and for FP8 with Kumar et al.
// 2024's effective parameter count at 8 bits against 16 (Eq. 4, Table 2:
// TrainPrecisionLaw::trained_at), its bootstrap draws alike, named so.
PlanLaw forecast_law(const PlanLaw& law, Precision precision);

// The post-training quantization law a budget uses: the constants given
// (--ptq-law), else Kumar et al. 2024's Appendix K, Table 2 ones.
PtqLaw serving_ptq_law(const BudgetInputs& in);

// Fills r.quality_penalty_nats / _text (for r.recommended.run, served at
// r.inputs.serving_weights; the constants given, else the built-in ones) and
// r.train_gemm_peak_flops_per_s, r.train_precision_penalty_nats /
// r.train_precision_text (what FP8 training costs: r.recommended.run's loss,
// under r.law, against the same run under `bf16_law`).
void precision_read_outs(BudgetReport& r, const Chip& chip, const DataConstrainedLaw& bf16_law);

}  // namespace napkin

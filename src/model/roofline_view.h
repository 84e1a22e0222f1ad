// What the Roofline panel, its report section and the CLI show for one
// scenario (seed Phase 03): every plot's data from one call, so a slider
// change recomputes once and nothing is computed in the panel.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "roofline.h"

namespace napkin {

// Everything the Roofline panel plots, from one scenario: what one slider
// change recomputes.
struct RooflineScenario {
  std::string chip = "TPU v5e";
  std::vector<std::string> overlay_chips;  // other rooflines to draw
  ModelShape shape;
  OperationSetting operations;
  MfuBudgetInputs mfu;
  double recompute = recompute_factor(Checkpointing::full);
  // Chip, N (active; total resident), prompt tokens, batch, bytes per
  // parameter and the KV cache per request (at operations.context_tokens) are
  // taken from the fields above; the rest (decode tokens, budget, overhead, …)
  // from here.
  TurnInputs turn;
  std::vector<double> model_sizes;  // empty: 1B … 1T, log-spaced
  std::int64_t max_chips_plotted = 1024;
  std::int64_t max_batch = 1024;
  std::int64_t tile = 128;
  std::int64_t tile_dim_lo = 64;
  std::int64_t tile_dim_hi = 1024;
  KvServing kv;  // layers, heads, head dim and N are taken from shape
  DepthWidthInputs depth_width;
  std::vector<std::int64_t> depth_options = {16, 24, 32, 48, 64, 80, 96, 128};
};

struct RooflinePanelData {
  double ridge_flops_per_byte = 0;
  std::vector<RooflineCurvePoint> roofline;
  std::vector<std::vector<RooflineCurvePoint>> overlays;
  std::vector<PlacedOperation> operations;
  std::vector<DecodeIntensityPoint> decode_wall;
  MfuBudget mfu_budget;
  double hfu_over_mfu = 0;  // the recompute factor, as read out
  TurnLatency turn;
  std::vector<TurnLatency> latency;
  std::optional<std::int64_t> chips_for_budget;
  std::int64_t chips_to_hold_weights = 0;
  std::vector<ModelSizePoint> model_sizes;
  std::vector<TilePoint> tiles;
  std::vector<GqaPoint> kv_heads;
  std::vector<DepthWidthPoint> depth_width;
};

// Throws std::invalid_argument like the functions it calls (including a budget
// at or below the overhead).
RooflinePanelData roofline_panel(const RooflineScenario& scenario);

}  // namespace napkin

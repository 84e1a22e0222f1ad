// Speculative decoding (serving_speculative.h).
#include <gtest/gtest.h>

#include <cmath>

#include "serving_speculative.h"
#include "serving_test_util.h"

namespace napkin {
namespace {

const ModelShape kLlama2_7B{};

// Leviathan et al. eq. 1: E = (1 − α^(k+1)) / (1 − α).
TEST(ServingSpeculative, ExpectedTokens) {
  EXPECT_NEAR(speculative_expected_tokens(4, 0.8), (1 - std::pow(0.8, 5)) / 0.2, 1e-12);
  EXPECT_NEAR(speculative_expected_tokens(4, 0.8), 3.3616, 1e-12);
  EXPECT_DOUBLE_EQ(speculative_expected_tokens(3, 0.0), 1.0);  // every proposal rejected
  EXPECT_DOUBLE_EQ(speculative_expected_tokens(3, 1.0), 4.0);  // every proposal accepted
  EXPECT_THROW(speculative_expected_tokens(0, 0.5), std::invalid_argument);
  EXPECT_THROW(speculative_expected_tokens(4, 1.5), std::invalid_argument);
}

SpeculativeInputs h100(std::int64_t batch) {
  SpeculativeInputs in;
  in.serving.chip = "H100";
  in.serving.layout = {8, 1, 1};
  in.serving.batch = batch;
  in.serving.prompt_tokens = 1024;
  in.serving.decode_tokens = 256;
  in.serving.engine = "tensorrt-llm";
  in.draft = serving_model(kLlama2_7B);
  in.draft_tokens = 4;
  in.acceptance = 0.8;
  return in;
}

// Wins at batch 1 (memory-bound verification costs about one step), loses at
// a large batch (compute-bound verification costs about k + 1 steps).
TEST(ServingSpeculative, WinsSmallLosesLarge) {
  const ServingModel target = serving_model(kLlama2_70B);
  const SpeculativeResult small = evaluate_speculative(target, h100(1));
  EXPECT_GT(small.speedup, 1.5);
  EXPECT_LT(small.verify_step_seconds, 1.2 * small.target_step_seconds);
  EXPECT_NEAR(small.tpot_seconds * small.expected_tokens_per_step, small.round_seconds, 1e-15);
  const SpeculativeResult large = evaluate_speculative(target, h100(512));
  EXPECT_LT(large.speedup, 1.0);
  EXPECT_GT(large.verify_step_seconds, 2.5 * large.target_step_seconds);
  // No acceptance: one token per round, always a loss.
  SpeculativeInputs none = h100(1);
  none.acceptance = 0;
  EXPECT_LT(evaluate_speculative(target, none).speedup, 1.0);
}

}  // namespace
}  // namespace napkin

// torchtitan's June 2025 async-TP tables on Grand Teton H100, held out: the
// same model of the hardware and the framework as the December 2024 set, with
// the loss compiled as torchtitan then did.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "training_validation.h"
#include "validation.h"
#include "validation_data.h"

using namespace napkin;

namespace {

const char* kJune2025File = "torchtitan/h100_202506_async_tp.csv";

ValidationSet june_2025_set() {
  std::vector<ValidationSet> built = public_validation_sets("torchtitan-h100-2025");
  if (built.size() != 1) throw std::runtime_error("no set torchtitan-h100-2025");
  return built.front();
}

bool mentions(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST(ValidationTorchtitan2025, AsyncTpTablesAreHeldOut) {
  // Six of the twelve rows are priced: Llama 3.1 70B in bf16 and Float8
  // (tensorwise) with full checkpointing, and 8B in bf16 with op-level
  // checkpointing, each without and with async TP. Async TP is priced as
  // blocking TP, so each pair shares one prediction: bf16 70B's between the
  // vanilla and the async run, Float8 70B's below both, 8B's above both.
  const ValidationSet s = june_2025_set();
  ASSERT_EQ(s.rows.size(), 6u);
  const ValidationSummary m = summarize(s);
  std::printf("torchtitan-h100-2025 mean |err| %.1f %% signed %+.1f %%\n", 100 * m.mean_abs_error,
              100 * m.mean_signed_error);
  EXPECT_LE(m.mean_abs_error, 0.10);
  EXPECT_LE(std::abs(m.mean_signed_error), 0.05);
  EXPECT_LE(std::abs(m.worst_error), 0.20);
  for (std::size_t i = 0; i < s.rows.size(); i += 2) {
    const ValidationRow& vanilla = s.rows[i];
    const ValidationRow& async = s.rows[i + 1];
    EXPECT_FALSE(mentions(vanilla.label, "async TP")) << vanilla.label;
    EXPECT_TRUE(mentions(async.label, "async TP")) << async.label;
    EXPECT_EQ(vanilla.predicted, async.predicted) << vanilla.label;
    EXPECT_GT(async.measured, vanilla.measured) << async.label;  // async TP ran faster
    EXPECT_EQ(vanilla.setting.rfind("fsdp-compile", 0), 0u) << vanilla.label;
    EXPECT_FALSE(mentions(vanilla.setting, "loss eager")) << vanilla.label;
  }
  EXPECT_TRUE(mentions(s.rows[2].label, "Float8") && mentions(s.rows[2].setting, "FP8"))
      << s.rows[2].label;
  EXPECT_TRUE(mentions(s.rows[4].label, "llama3.1-8b on 64: tp=8 pp=1 dp=8 mb=12 selective:op"))
      << s.rows[4].label;
  // Float8 against bf16 on the same 70B layout: 1.36x as measured without
  // async TP, 1.25x in Napkin.
  const double napkin = s.rows[2].predicted / s.rows[0].predicted;
  const double measured = s.rows[2].measured / s.rows[0].measured;
  EXPECT_NEAR(measured, 1.356, 0.005);
  EXPECT_GT(napkin, 1.15);
  EXPECT_LT(napkin, measured);
}

TEST(ValidationTorchtitan2025, AnUnknownFloat8RecipeIsRefusedNamingTheLine) {
  std::string edited(validation_data(kJune2025File));
  const std::string from = ",yes,tensorwise,no,";
  edited.replace(edited.find(from), from.size(), ",yes,mxfp8,no,");
  try {
    torchtitan_h100_2025_throughput_set(edited);
    ADD_FAILURE() << "mxfp8 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_TRUE(mentions(e.what(),
                         "h100_202506_async_tp.csv, line 4: float8 must be no, yes, "
                         "tensorwise or rowwise; got \"mxfp8\""))
        << e.what();
  }
}

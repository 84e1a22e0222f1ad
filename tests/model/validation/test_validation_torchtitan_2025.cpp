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
#include "validation_test_util.h"

using namespace napkin;

namespace {

const char* kJune2025File = "torchtitan/h100_202506_async_tp.csv";

bool mentions(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST(ValidationTorchtitan2025, AsyncTpTablesAreHeldOut) {
  // Eight of the twelve rows are priced: Llama 3.1 70B with full
  // checkpointing and 8B with op-level checkpointing, each in bf16 and Float8
  // (tensorwise), each without and with async TP (not the row-wise Float8
  // rows). Async TP is priced as blocking TP, so each pair shares one
  // prediction: 70B bf16's between the vanilla and the async run, 70B
  // Float8's below both, 8B's above both.
  const ValidationSet s = validation_test::only_set("torchtitan-h100-2025");
  ASSERT_EQ(s.rows.size(), 8u);
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
  // torchao's Float8 linears call aten.mm on Float8 tensors, which the op
  // policy's dispatch mode sees before the tensor's own dispatch: the 8B
  // Float8 rows are priced with the bf16 rows' kept tensors.
  EXPECT_TRUE(mentions(s.rows[6].label, "selective:op Float8")) << s.rows[6].label;
  EXPECT_GT(s.rows[6].predicted, s.rows[4].predicted);
  // Float8 against bf16 on the same 70B layout: 1.36x as measured without
  // async TP, 1.25x in Napkin.
  const double napkin = s.rows[2].predicted / s.rows[0].predicted;
  const double measured = s.rows[2].measured / s.rows[0].measured;
  EXPECT_NEAR(measured, 1.356, 0.005);
  EXPECT_GT(napkin, 1.15);
  EXPECT_LT(napkin, measured);
}

TEST(ValidationTorchtitan2025, AnUnknownFloat8RecipeIsRefusedNamingTheLine) {
  const std::string why = validation_test::refusal(
      torchtitan_h100_2025_throughput_set, kJune2025File, ",yes,tensorwise,no,", ",yes,mxfp8,no,");
  EXPECT_TRUE(mentions(why,
                       "h100_202506_async_tp.csv, line 4: float8 must be no, yes, "
                       "tensorwise or rowwise; got \"mxfp8\""))
      << why;
}

TEST(ValidationTorchtitan2025, AnUnknownNormTypeIsRefusedNamingTheLine) {
  // The April 2024 A100 table's norm_type (its training configurations').
  const std::string why =
      validation_test::refusal(torchtitan_validation_set, "torchtitan/a100_fsdp2.csv",
                               ",full,rmsnorm,331,", ",full,layernorm,331,");
  EXPECT_TRUE(mentions(why,
                       "a100_fsdp2.csv line 4: norm_type must be rmsnorm or fused_rmsnorm; "
                       "got 'layernorm'"))
      << why;
}

TEST(ValidationTorchtitan2025, H200RunsAreHeldOut) {
  // Trainy's Llama 3.1 8B on 32 and 64 H200 (FSDP2, compile, Float8, op-level
  // checkpointing): a chip no other training set runs on. Throughput about
  // 5 % above, memory about 3 % under: bounded so that neither drifts unseen.
  const ValidationSet tps = validation_test::only_set("torchtitan-h200");
  const ValidationSet mem = validation_test::only_set("torchtitan-h200-memory");
  ASSERT_EQ(tps.rows.size(), 2u);
  ASSERT_EQ(mem.rows.size(), 2u);
  EXPECT_TRUE(mem.lower_is_optimistic);
  const ValidationSummary t = summarize(tps), m = summarize(mem);
  std::printf("torchtitan-h200 %+.1f %%, memory %+.1f %%\n", 100 * t.mean_signed_error,
              100 * m.mean_signed_error);
  EXPECT_LE(t.mean_abs_error, 0.08);
  EXPECT_LE(m.mean_abs_error, 0.06);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(tps.rows[i].label, mem.rows[i].label);
    EXPECT_TRUE(mentions(tps.rows[i].label, "selective:op Float8")) << tps.rows[i].label;
  }
  // The same model and local batch on twice the GPUs: a little slower per GPU,
  // as measured.
  EXPECT_LT(tps.rows[1].predicted, tps.rows[0].predicted);
  EXPECT_LT(tps.rows[1].measured, tps.rows[0].measured);
}

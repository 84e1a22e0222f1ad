// MaxText's TPU v5e and v5p tables (December 2023), held out: each row's
// script layout, the model its base.yml makes, MaxText's own FLOP count.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "algebra.h"
#include "training_validation.h"
#include "validation.h"
#include "validation_data.h"
#include "validation_test_util.h"

using namespace napkin;

namespace {

const char* kMaxTextFile = "maxtext/tpu_v5_2023.csv";

// What maxtext_validation_sets throws on the file with `from` replaced by `to`.
std::string refusal(const std::string& from, const std::string& to) {
  return validation_test::refusal(
      [](std::string_view text) { return maxtext_validation_sets(text).front(); }, kMaxTextFile,
      from, to);
}

}  // namespace

TEST(ValidationMaxText, TpuTablesAreHeldOut) {
  const std::vector<ValidationSet> sets = public_validation_sets("maxtext-tpu-v5e");
  ASSERT_EQ(sets.size(), 1u);
  const ValidationSet& v5e = sets.front();
  const ValidationSet v5p = public_validation_sets("maxtext-tpu-v5p").front();
  ASSERT_EQ(v5e.rows.size(), 24u);  // four models on 1, 2, 4, 8, 16 and 32 slices
  ASSERT_EQ(v5p.rows.size(), 16u);  // eight slice configurations on 1 and 2 slices
  for (const ValidationSet* s : {&v5e, &v5p}) {
    const ValidationSummary m = summarize(*s);
    std::printf("%s mean |err| %.1f %% signed %+.1f %% worst %+.1f %%\n", s->key.c_str(),
                100 * m.mean_abs_error, 100 * m.mean_signed_error, 100 * m.worst_error);
    // Bounded so that a change that moves them is seen.
    EXPECT_LE(m.mean_abs_error, 0.10) << s->key;
    EXPECT_LE(std::abs(m.mean_signed_error), 0.06) << s->key;
    EXPECT_LE(std::abs(m.worst_error), 0.23) << s->key;
    for (const ValidationRow& r : s->rows) EXPECT_EQ(r.setting, "maxtext") << r.label;
  }
  // The measurement is the table's MFU at the chip's peak: 61.10 % of 197
  // TFLOP/s (the table prints 120), 71.47 % of 459 (328).
  EXPECT_NEAR(v5e.rows[0].measured, 0.6110 * 197, 1e-9);
  EXPECT_NEAR(v5p.rows[0].measured, 0.7147 * 459, 1e-9);
  EXPECT_EQ(v5e.rows[0].label, "1x v5e-256: 16B on 256: tp=1 pp=1 dp=256 mb=6 full recompute");
  EXPECT_EQ(v5e.rows[5].label.rfind("32x v5e-256: 16B on 8192: tp=1 pp=1 dp=8192", 0), 0u);
  // TP 16 on a v5e slice: FSDP over the other 16 chips, one micro-batch of
  // the TP group's 16 sequences; v5p-128 is 64 chips (two cores each).
  EXPECT_EQ(v5e.rows[18].label.rfind("1x v5e-256: 128B on 256: tp=16 pp=1 dp=16 mb=16 full", 0),
            0u);
  EXPECT_EQ(v5p.rows[0].label.rfind("1x v5p-128: 32B on 64: tp=4 pp=1 dp=16 mb=32 selective", 0),
            0u);
  // More slices never predict more per chip: the cross-slice reduction is
  // hidden at best. (The measured rows fall faster: the README says so.)
  for (std::size_t m = 0; m < 4; ++m)
    for (std::size_t k = 1; k < 6; ++k)
      EXPECT_LE(v5e.rows[6 * m + k].predicted, v5e.rows[6 * m + k - 1].predicted * (1 + 1e-12))
          << v5e.rows[6 * m + k].label;
}

TEST(ValidationMaxText, TheModelIsMaxTextsParallelBlock) {
  // 16B at global_parameter_scale 16 from base.yml's 2,560 × 16 layers:
  // width 5,120, 32 heads of 256, MLP 32,768, 32 layers; tied embedding of
  // 32,768 rows; one norm per block and the final norm: 16.28B parameters.
  ModelShape s;
  s.n_layers = 32, s.d_model = 5120, s.d_ff = 32768, s.n_heads = s.n_kv_heads = 32;
  s.d_head = 256, s.vocab = 32768, s.gated = false, s.tied_embeddings = true;
  s.parallel_blocks = true, s.norms_per_layer = 1;
  const std::int64_t layer = 4LL * 5120 * 8192 + 2LL * 5120 * 32768 + 5120;
  EXPECT_EQ(count_params(s).total, 32 * layer + 32768LL * 5120 + 5120);
}

TEST(ValidationMaxText, BadRowsNameTheLine) {
  EXPECT_NE(refusal("TPU v5e,v5e-256,256,1,16B", "TPU v4,v5e-256,256,1,16B")
                .find("tpu_v5_2023.csv line 2: chip must be TPU v5e or TPU v5p; got 'TPU v4'"),
            std::string::npos);
  EXPECT_NE(refusal("2048,full,256,1,120", "2048,offloaded,256,1,120")
                .find("line 2: remat_policy must be full or minimal; got 'offloaded'"),
            std::string::npos);
  EXPECT_NE(refusal("2048,full,256,1,120", "2048,full,128,1,120")
                .find("line 2: ici_fsdp_parallelism × ici_tensor_parallelism must be the "
                      "slice's 256 chips"),
            std::string::npos);
}

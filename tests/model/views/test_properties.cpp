// Properties over random valid inputs (a seeded engine; std::mt19937_64's
// sequence is fixed by the standard, and values are mapped without
// std::*_distribution, whose output is implementation-defined).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "algebra.h"
#include "budget.h"
#include "hardware.h"
#include "moe.h"
#include "roofline.h"
#include "scaling.h"

using namespace napkin;

namespace {

class Gen {
 public:
  explicit Gen(std::uint64_t seed) : rng_(seed) {}
  double uniform() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }
  double log_uniform(double lo, double hi) {
    return std::exp(std::log(lo) + uniform() * (std::log(hi) - std::log(lo)));
  }
  std::int64_t integer(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(rng_() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  ModelShape shape() {
    ModelShape s;
    s.n_layers = integer(1, 120);
    s.n_heads = integer(1, 128);
    const std::int64_t group = integer(1, s.n_heads);
    s.n_kv_heads = s.n_heads % group == 0 ? s.n_heads / group : 1;
    s.d_head = integer(16, 256);
    s.d_model = integer(64, 16384);
    s.d_ff = integer(64, 65536);
    s.vocab = integer(1000, 300000);
    s.gated = uniform() < 0.7;
    s.tied_embeddings = uniform() < 0.3;
    if (uniform() < 0.3) {
      s.n_experts = integer(1, 256);
      s.top_k = integer(1, std::min<std::int64_t>(s.n_experts, 8));
      s.shared_experts = integer(0, 2);
    }
    return s;
  }

 private:
  std::mt19937_64 rng_;
};

constexpr int kCases = 500;

}  // namespace

TEST(Properties, DoublingNDoublesTrainingAndInferenceFlops) {
  Gen g(1);
  for (int i = 0; i < kCases; ++i) {
    const double n = g.log_uniform(1e6, 1e13), d = g.log_uniform(1e6, 1e14);
    EXPECT_NEAR(training_flops(2 * n, d) / training_flops(n, d), 2.0, 1e-12);
    EXPECT_NEAR(inference_flops(n, 2 * d) / inference_flops(n, d), 2.0, 1e-12);
    EXPECT_NEAR(training_flops(n, d), 3 * inference_flops(n, d), training_flops(n, d) * 1e-12);
  }
}

TEST(Properties, ParameterCountsAreConsistent) {
  Gen g(2);
  for (int i = 0; i < kCases; ++i) {
    const ModelShape s = g.shape();
    const ParamCount c = count_params(s);
    EXPECT_EQ(c.total, c.non_embedding_total + c.embedding);
    EXPECT_EQ(c.active, c.non_embedding_active + c.embedding);
    EXPECT_LE(c.active, c.total);
    EXPECT_GE(c.sparsity_ratio(), 1.0);
    ModelShape twice = s;
    twice.n_layers = 2 * s.n_layers;
    EXPECT_EQ(count_params(twice).body, 2 * c.body);
  }
}

TEST(Properties, MemoryTermsSumToTheTotalAndZeroNeverIncreasesIt) {
  Gen g(3);
  for (int i = 0; i < kCases; ++i) {
    const auto n = static_cast<std::int64_t>(g.log_uniform(1e6, 1e12));
    const auto act = static_cast<std::int64_t>(g.log_uniform(1, 1e12));
    const auto dp = g.integer(1, 4096);
    const auto opt = static_cast<Optimizer>(g.integer(0, 2));
    const auto prec = static_cast<Precision>(g.integer(0, 1));
    std::int64_t prev = -1;
    for (int z = 0; z <= 3; ++z) {
      const TrainingMemory m = training_memory(n, act, opt, prec, z, dp);
      EXPECT_EQ(m.total, m.weights + m.grads + m.optimizer + m.activations);
      if (prev >= 0) {
        EXPECT_LE(m.total, prev);
      }
      prev = m.total;
    }
  }
}

TEST(Properties, RooflineIsContinuousAndMonotone) {
  for (const Chip& chip : hardware_table()) {
    const double ridge = ridge_point_flops_per_byte(chip);
    const double below = attainable_flops_per_s(chip, ridge * (1 - 1e-9));
    const double above = attainable_flops_per_s(chip, ridge * (1 + 1e-9));
    EXPECT_NEAR(below / chip.peak_flops_per_s, 1.0, 1e-8) << chip.name;
    EXPECT_DOUBLE_EQ(above, chip.peak_flops_per_s) << chip.name;
    double prev = 0;
    for (double i = 0.01; i < 1e5; i *= 1.3) {
      const double a = attainable_flops_per_s(chip, i);
      EXPECT_GE(a, prev);
      EXPECT_LE(a, chip.peak_flops_per_s);
      prev = a;
    }
  }
}

TEST(Properties, DecodeIntensityAgreesWithTheBoundItReports) {
  Gen g(4);
  for (int i = 0; i < kCases; ++i) {
    const Chip& chip = hardware_table()[static_cast<std::size_t>(
        g.integer(0, static_cast<std::int64_t>(hardware_table().size()) - 1))];
    DecodeShape d;
    d.n_params = g.log_uniform(1e8, 1e12);
    d.n_layers = g.integer(1, 128);
    d.n_kv_heads = g.integer(1, 64);
    d.d_head = g.integer(32, 256);
    d.seq_len = g.integer(1, 1 << 20);
    const std::int64_t batch = g.integer(1, 4096);
    const DecodeIntensityPoint p = decode_intensity_point(chip, d, batch);
    const double ridge = ridge_point_flops_per_byte(chip);
    EXPECT_NEAR(p.fraction_of_ridge, p.intensity / ridge,
                1e-12 * std::max(1.0, p.intensity / ridge));
    EXPECT_EQ(p.bound == Bound::memory, p.intensity < ridge);
    EXPECT_LE(p.attainable_flops_per_s, chip.peak_flops_per_s);
    EXPECT_GE(p.kv_share_of_bytes, 0.0);
    EXPECT_LE(p.kv_share_of_bytes, 1.0);
    // With no KV cache, intensity is at most 2·batch / bytes per param.
    EXPECT_LE(p.intensity, 2.0 * static_cast<double>(batch) / d.bytes_per_param * (1 + 1e-12));
  }
}

TEST(Properties, LoadBalanceLossIsAtLeastOneAndOneOnlyWhenBalanced) {
  Gen g(5);
  for (int i = 0; i < 200; ++i) {
    const std::int64_t experts = g.integer(2, 16);
    const std::int64_t tokens = experts * g.integer(1, 8);
    std::vector<std::vector<std::int64_t>> assign;
    std::vector<std::vector<double>> probs;
    const bool balanced = i % 2 == 0;
    for (std::int64_t t = 0; t < tokens; ++t) {
      assign.push_back({balanced ? t % experts : g.integer(0, experts - 1)});
      // Router probabilities that follow the assignment (a router that means it).
      std::vector<double> p(static_cast<std::size_t>(experts), 0.0);
      p[static_cast<std::size_t>(assign.back()[0])] = 1.0;
      probs.push_back(p);
    }
    const double l = load_balance_loss(assign, probs, experts);
    if (balanced) {
      EXPECT_NEAR(l, 1.0, 1e-12);
    } else {
      std::vector<std::int64_t> counts(static_cast<std::size_t>(experts), 0);
      for (const auto& a : assign) ++counts[static_cast<std::size_t>(a[0])];
      const bool even =
          std::all_of(counts.begin(), counts.end(), [&](std::int64_t c) { return c == counts[0]; });
      if (even)
        EXPECT_NEAR(l, 1.0, 1e-12);
      else
        EXPECT_GT(l, 1.0 + 1e-12);
    }
  }
}

TEST(Properties, NoiseFreeFitRecoversItsTruth) {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    SyntheticLadderSpec spec;
    spec.noise = 0;
    spec.seed = seed;
    spec.law = seed == 2 ? besiroglu2024_law() : chinchilla_approach3_law();
    const FitResult f = fit_parametric(synthetic_ladder(spec));
    EXPECT_NEAR(f.law.alpha, spec.law.alpha, 1e-3) << seed;
    EXPECT_NEAR(f.law.beta, spec.law.beta, 1e-3) << seed;
    EXPECT_NEAR(f.law.E, spec.law.E, 1e-3 * spec.law.E) << seed;
  }
}

TEST(Properties, ChinchillaSplitSpendsExactlyTheBudget) {
  Gen g(6);
  for (int i = 0; i < kCases; ++i) {
    const double c = g.log_uniform(1e15, 1e30), r = g.log_uniform(0.1, 1000);
    const ChinchillaSplit s = chinchilla_split(c, r);
    EXPECT_NEAR(6 * s.params * s.tokens / c, 1.0, 1e-12);
    EXPECT_NEAR(s.tokens / s.params, r, r * 1e-12);
  }
}

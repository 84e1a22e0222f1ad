// The collapse simulation's first steps, pinned to the last digit: the
// generator, the phases of a step and the order of their arithmetic may be
// reorganized, the trajectory may not change. Values recorded from the
// simulation as it stood before its step was split into phases and before
// it moved onto the shared generator (rng.h).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "moe.h"

namespace napkin {
namespace {

struct TraceRow {
  std::int64_t step;
  double max_over_mean, recent_max_over_mean, l_balance, l_z, task_loss;
  std::int64_t dropped_slots, fully_dropped_tokens, dead_experts;
  std::vector<std::int64_t> routed;
};

// Relative 1e-12: the simulation is deterministic to the bit on one compiler;
// the margin only absorbs printing to 17 digits.
void expect_close(double got, double want, const char* what, std::int64_t step) {
  EXPECT_NEAR(got, want, 1e-12 * std::max(1.0, std::abs(want))) << what << " at step " << step;
}

void expect_trace(const CollapseParams& p, const std::vector<TraceRow>& rows,
                  const std::vector<double>& skill, const std::vector<double>& gate_share) {
  CollapseSimulation sim(p);
  for (const TraceRow& r : rows) {
    const StepStats& s = sim.step();
    EXPECT_EQ(s.step, r.step);
    expect_close(s.max_over_mean, r.max_over_mean, "max_over_mean", r.step);
    expect_close(s.recent_max_over_mean, r.recent_max_over_mean, "recent_max_over_mean", r.step);
    expect_close(s.l_balance, r.l_balance, "l_balance", r.step);
    expect_close(s.l_z, r.l_z, "l_z", r.step);
    expect_close(s.task_loss, r.task_loss, "task_loss", r.step);
    EXPECT_EQ(s.dropped_slots, r.dropped_slots) << "step " << r.step;
    EXPECT_EQ(s.fully_dropped_tokens, r.fully_dropped_tokens) << "step " << r.step;
    EXPECT_EQ(s.dead_experts, r.dead_experts) << "step " << r.step;
    EXPECT_EQ(s.routed, r.routed) << "step " << r.step;
  }
  ASSERT_EQ(sim.expert_skill().size(), skill.size());
  for (std::size_t i = 0; i < skill.size(); ++i)
    expect_close(sim.expert_skill()[i], skill[i], "skill", static_cast<std::int64_t>(i));
  ASSERT_EQ(sim.current().recent_gate_share.size(), gate_share.size());
  for (std::size_t i = 0; i < gate_share.size(); ++i)
    expect_close(sim.current().recent_gate_share[i], gate_share[i], "recent_gate_share",
                 static_cast<std::int64_t>(i));
}

TEST(MoeCollapseTrace, DefaultParamsFirstTwelveSteps) {  // E = 8, k = 2, α = 0.01, cf = 1.25
  const std::vector<TraceRow> rows = {
      {1,
       1.578125,
       1.0289062499999999,
       1.2016810968129523,
       43.949323057744671,
       -0.0016086796263294933,
       38,
       4,
       0,
       {52, 76, 70, 46, 13, 101, 97, 57}},
      {2,
       1.53125,
       1.0532421875,
       1.2012849348658241,
       41.386512681466741,
       -0.0017064584855731688,
       35,
       6,
       0,
       {64, 67, 80, 37, 22, 97, 98, 47}},
      {3,
       1.734375,
       1.0852207031250001,
       1.1950745422362563,
       41.59598246076817,
       -0.0018284185385395841,
       37,
       3,
       0,
       {60, 53, 67, 40, 30, 86, 111, 65}},
      {4,
       1.640625,
       1.10908466796875,
       1.191688449929186,
       34.336397251048126,
       -0.0018672547765619387,
       45,
       9,
       0,
       {55, 60, 77, 41, 20, 105, 100, 54}},
      {5,
       1.453125,
       1.1262866845703126,
       1.1032576199566166,
       36.104839628169202,
       -0.0020349428290201959,
       18,
       3,
       0,
       {58, 61, 81, 49, 25, 84, 93, 61}},
      {6,
       1.6875,
       1.136229180419922,
       1.1864965939525485,
       34.145401212849706,
       -0.0021199903714199083,
       32,
       3,
       0,
       {43, 67, 75, 41, 24, 108, 84, 70}},
      {7,
       1.515625,
       1.1551989713989259,
       1.1385270108293548,
       29.175009468503099,
       -0.0022290199383771842,
       24,
       2,
       0,
       {73, 57, 79, 48, 32, 97, 87, 39}},
      {8,
       1.390625,
       1.1669702728289797,
       1.1017340734752918,
       28.619659983076566,
       -0.0022578356766713476,
       20,
       3,
       0,
       {61, 62, 85, 45, 34, 89, 86, 50}},
      {9,
       1.40625,
       1.1789342591875307,
       1.0799578978090134,
       28.377607649326848,
       -0.002303946646155226,
       16,
       4,
       0,
       {59, 58, 77, 45, 40, 90, 86, 57}},
      {10,
       1.5,
       1.1903000462281541,
       1.1455323742595489,
       30.434027022483921,
       -0.0023883859771904104,
       26,
       5,
       0,
       {62, 69, 71, 42, 25, 90, 96, 57}},
      {11,
       1.4375,
       1.2026600439167463,
       1.1004204711163061,
       24.806437911012416,
       -0.0024580465680798134,
       20,
       2,
       0,
       {61, 71, 85, 37, 26, 92, 83, 57}},
      {12,
       1.46875,
       1.212839541720909,
       1.1257189493849802,
       23.58798700854512,
       -0.0025272600722510475,
       30,
       7,
       0,
       {55, 67, 94, 44, 23, 90, 86, 53}},
  };
  expect_trace(
      CollapseParams{}, rows,
      {0.0023508694982180014, 0.0022582626031981455, 0.0028599247037102643, 0.0027327655124284194,
       0.0016071596240664014, 0.003757343207859204, 0.0026484698857721267, 0.002153010087299013},
      {0.12087154523315408, 0.13001342136245567, 0.12146532278921818, 0.09911384605342477,
       0.088153315546056571, 0.15916962648336097, 0.16289890585849739, 0.11831401667383243});
}

TEST(MoeCollapseTrace, TopOneRawGatesSharedExpert) {  // the k = 1 (Switch) branch
  CollapseParams p;
  p.top_k = 1;
  p.renormalize = false;
  p.aux_weight = 0;
  p.shared_expert = true;
  p.n_experts = 6;
  p.seed = 7;
  p.capacity_factor = 1.0;
  const std::vector<TraceRow> rows = {
      {1,
       1.3828125,
       1.0191406249999999,
       1.1049277031789955,
       30.331123672696112,
       -0.00085151395949435379,
       42,
       42,
       0,
       {59, 17, 53, 35, 56, 36}},
      {2,
       1.453125,
       1.0396679687499999,
       1.1594440361285676,
       26.838818595439431,
       -0.00087294928708122157,
       55,
       55,
       0,
       {61, 19, 62, 29, 58, 27}},
      {3,
       1.4765625,
       1.0615126953125,
       1.0669960794749145,
       25.586023560381708,
       -0.0010157062159218628,
       37,
       37,
       0,
       {63, 25, 51, 36, 49, 32}},
      {4,
       1.4296875,
       1.0658589355468751,
       1.1065377223394075,
       25.31898161008651,
       -0.001033664539449328,
       42,
       42,
       0,
       {49, 21, 61, 46, 54, 25}},
      {5,
       1.5,
       1.0875659887695313,
       1.1844293090067444,
       21.787242541052045,
       -0.00096112350420975482,
       60,
       60,
       0,
       {64, 18, 58, 32, 64, 20}},
      {6,
       1.4765625,
       1.1070158143310547,
       1.1183894918093678,
       20.75964326725304,
       -0.0010820973881783356,
       49,
       49,
       0,
       {63, 18, 57, 29, 55, 34}},
      {7,
       1.6640625,
       1.134868148614502,
       1.1375760188491282,
       19.762108809200924,
       -0.0011704379628291281,
       48,
       48,
       0,
       {71, 18, 49, 39, 54, 25}},
      {8,
       1.5234375,
       1.1542966161837769,
       1.1118197943857115,
       17.937400836164532,
       -0.0011977369684178553,
       44,
       44,
       0,
       {65, 25, 59, 33, 46, 28}},
      {9,
       1.5234375,
       1.1610349103745881,
       1.0776088354719555,
       17.650518764503168,
       -0.0011918622800461002,
       36,
       36,
       0,
       {55, 29, 35, 40, 65, 32}},
      {10,
       1.6640625,
       1.1861862898558586,
       1.120489638397173,
       16.825446390960643,
       -0.0012285966590605132,
       48,
       48,
       0,
       {71, 25, 42, 34, 61, 23}},
      {11,
       1.7578125,
       1.1936738503630657,
       1.1577559218670062,
       16.583024000234829,
       -0.0012341855666729669,
       51,
       51,
       0,
       {57, 17, 45, 30, 75, 32}},
      {12,
       1.546875,
       1.2113339078449123,
       1.0868688162825493,
       15.78318832649221,
       -0.0013767122845061389,
       33,
       33,
       0,
       {66, 24, 42, 41, 51, 32}},
  };
  expect_trace(p, rows,
               {0.0018180536104579574, 0.0016180460442710527, 0.0034904544849499392,
                0.0030025627746563211, 0.0022426770693619326, 0.0017419594518328866},
               {0.20357898653000894, 0.12538933002541719, 0.18223903635680855, 0.15021123509905629,
                0.1968712064799798, 0.14171020550872915});
}

TEST(MoeCollapseTrace, AlphaZeroAfterFourHundredSteps) {  // the collapsed end state, seed 3
  CollapseParams p;
  p.aux_weight = 0;
  p.seed = 3;
  CollapseSimulation sim(p);
  sim.run(400);
  const StepStats& s = sim.current();
  expect_close(s.max_over_mean, 4.0, "max_over_mean", 400);
  expect_close(s.recent_max_over_mean, 3.9549826311171659, "recent_max_over_mean", 400);
  expect_close(s.drop_rate, 0.564453125, "drop_rate", 400);
  EXPECT_EQ(s.dead_experts, 5);
  expect_close(s.l_balance, 2.093442151122872, "l_balance", 400);
}

TEST(MoeLayerTrace, SeededWeightsArePinned) {  // make_moe_layer's Box–Muller draws
  const MoeLayer l = make_moe_layer(4, 6, 3, true, 11);
  EXPECT_NEAR(l.router_w[0][0], 0.30336755488918443, 1e-15);
  EXPECT_NEAR(l.router_w[2][3], 0.15360293296237781, 1e-15);
  EXPECT_NEAR(l.experts[1].w_out[3][5], -0.32784373201419031, 1e-15);
  EXPECT_NEAR(l.shared.w_in[5][2], -0.5247854712784612, 1e-15);
}

}  // namespace
}  // namespace napkin

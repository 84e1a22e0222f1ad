// CSV ladders: the real Chinchilla Figure 4 points (Besiroglu et al. 2024)
// and hostile input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "csv_ladder.h"
#include "io_test_util.h"

using namespace io_test;

using namespace napkin;

namespace {

CsvLadderOptions chinchilla_options() {
  CsvLadderOptions o;
  o.n_column = "Model Size";
  o.c_column = "Training FLOP";
  o.loss_column = "loss";
  return o;
}

// Expects parse_csv_ladder(text) to throw std::invalid_argument whose message
// contains every needle.
void expect_rejected(const std::string& text, std::initializer_list<std::string> needles,
                     const CsvLadderOptions& o = {}) {
  try {
    parse_csv_ladder(text, "ladder.csv", o);
    ADD_FAILURE() << "accepted: " << text;
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("ladder.csv"), std::string::npos) << msg;
    for (const auto& n : needles) EXPECT_NE(msg.find(n), std::string::npos) << msg;
  }
}

}  // namespace

TEST(CsvLadder, ChinchillaFileRowsAndDerivedTokens) {
  const CsvLadder all = load_csv_ladder(kChinchilla, chinchilla_options());
  EXPECT_EQ(all.rows, 245);  // SOURCE.md: 245 data rows
  ASSERT_EQ(all.points.size(), 245u);
  EXPECT_TRUE(all.tokens_from_flops);
  EXPECT_EQ(all.tokens_column, "Training FLOP");
  // First row, D = C / 6N.
  EXPECT_DOUBLE_EQ(all.points[0].n_params, 6795600349.289497);
  EXPECT_DOUBLE_EQ(all.points[0].n_tokens, 9.993852799709755e+18 / (6 * 6795600349.289497));
  EXPECT_DOUBLE_EQ(all.points[0].loss, 5.005581996196243);
  double d_min = 1e300, d_max = 0;
  for (const auto& p : all.points) {
    d_min = std::min(d_min, p.n_tokens);
    d_max = std::max(d_max, p.n_tokens);
  }
  EXPECT_NEAR(d_min, 2.45e8, 0.005e8);  // SOURCE.md: 2.45e8 … 3.18e11 tokens
  EXPECT_NEAR(d_max, 3.18e11, 0.005e11);
}

TEST(CsvLadder, ChinchillaLossFilter) {
  CsvLadderOptions o = chinchilla_options();
  // The paper drops the 5 highest losses. The fifth is 3.446995…, so a
  // threshold of exactly 3.447 keeps 241 rows; 3.4469 keeps the paper's 240.
  o.max_loss = 3.447;
  EXPECT_EQ(load_csv_ladder(kChinchilla, o).points.size(), 241u);
  o.max_loss = 3.4469;
  const CsvLadder l = load_csv_ladder(kChinchilla, o);
  EXPECT_EQ(l.points.size(), 240u);
  EXPECT_EQ(l.rows_filtered, 5);
  for (const auto& p : l.points) EXPECT_LT(p.loss, 3.4469);
}

TEST(CsvLadder, ChinchillaFitLandsOnTheReplication) {
  CsvLadderOptions o = chinchilla_options();
  o.max_loss = 3.4469;
  const CsvLadder l = load_csv_ladder(kChinchilla, o);
  const FitResult f = fit_parametric(l.points);  // Huber δ = 1e-3 on log L, LSE
  // SOURCE.md's Huber-sum grid fit (L-BFGS-B from 4,500 starts).
  EXPECT_NEAR(f.objective, 1.018274e-3, 5e-10);
  EXPECT_NEAR(f.law.E, 1.8172, 5e-4);
  EXPECT_NEAR(f.law.A, 477.8, 1.0);
  EXPECT_NEAR(f.law.alpha, 0.34731, 2e-4);
  EXPECT_NEAR(f.law.B, 2143.9, 10.0);  // the objective is flat along B: SOURCE.md says "≈"
  EXPECT_NEAR(f.law.beta, 0.36718, 2e-4);
  // The published replication (Besiroglu et al. 2024, Table 1; an MLE with a
  // fitted scale, so a slightly different optimum).
  const LossLaw pub = besiroglu2024_law();
  EXPECT_NEAR(f.law.E, pub.E, 0.01);
  EXPECT_NEAR(f.law.A, pub.A, 0.02 * pub.A);
  EXPECT_NEAR(f.law.alpha, pub.alpha, 0.002);
  EXPECT_NEAR(f.law.B, pub.B, 0.04 * pub.B);
  EXPECT_NEAR(f.law.beta, pub.beta, 0.002);
  // Our optimum is at least as good as the published constants under this objective.
  EXPECT_LE(f.objective, fit_objective(l.points, pub, Estimator::huber_log));
  EXPECT_TRUE(f.converged);
}

TEST(CsvLadder, TokensColumnOrFlopsColumn) {
  const CsvLadder d = parse_csv_ladder("N,D,loss\n1e9,2e10,2.5\n", "mem.csv");
  EXPECT_DOUBLE_EQ(d.points[0].n_tokens, 2e10);
  EXPECT_FALSE(d.tokens_from_flops);
  const CsvLadder c = parse_csv_ladder("N,C,loss\n1e9,1.2e20,2.5\n", "mem.csv");
  EXPECT_DOUBLE_EQ(c.points[0].n_tokens, 1.2e20 / 6e9);
  EXPECT_TRUE(c.tokens_from_flops);
  CsvLadderOptions o;
  o.n_column = "params";
  o.d_column = "tokens";
  o.loss_column = "L";
  o.budget_column = "budget";
  const CsvLadder named =
      parse_csv_ladder("params,tokens,L,budget\n1e9,2e10,2.5,1.2e20\n", "mem.csv", o);
  EXPECT_DOUBLE_EQ(named.points[0].budget_flops, 1.2e20);
  EXPECT_DOUBLE_EQ(named.points[0].loss, 2.5);
}

TEST(CsvLadder, Rfc4180QuotingCrlfBomAndBlankLines) {
  const std::string text =
      "\xEF\xBB\xBF\"Model, size\",\"D\",loss\r\n"
      "\"1e9\", 2e10 ,\"2.5\"\r\n"
      "\r\n"
      "2e9,4e10,2.4\r\n";
  CsvLadderOptions o;
  o.n_column = "Model, size";
  const CsvLadder l = parse_csv_ladder(text, "mem.csv", o);
  ASSERT_EQ(l.points.size(), 2u);
  EXPECT_DOUBLE_EQ(l.points[0].n_params, 1e9);
  EXPECT_DOUBLE_EQ(l.points[0].n_tokens, 2e10);
  EXPECT_DOUBLE_EQ(l.points[1].loss, 2.4);
  // A quoted header with an escaped quote and a newline inside quotes; line
  // numbers of later rows stay right.
  CsvLadderOptions q;
  q.n_column = "N \"params\"\nnon-embedding";
  expect_rejected("\"N \"\"params\"\"\nnon-embedding\",D,loss\n1e9,2e10,2.5\n1e9,x,2.5\n",
                  {"line 4", "\"D\"", "\"x\""}, q);
}

TEST(CsvLadder, HostileValuesNameFileLineColumnAndValue) {
  expect_rejected("N,D,loss\n1e9,2e10,2.5\n1e9,,2.5\n", {"line 3", "\"D\"", "empty"});
  expect_rejected("N,D,loss\n1e9,2e10,nan\n", {"line 2", "\"loss\"", "\"nan\""});
  expect_rejected("N,D,loss\n1e9,2e10,NaN\n", {"line 2", "\"loss\"", "NaN"});
  expect_rejected("N,D,loss\ninf,2e10,2.5\n", {"line 2", "\"N\"", "\"inf\""});
  expect_rejected("N,D,loss\n1e9,2e10,-2.5\n", {"line 2", "\"loss\"", "> 0", "\"-2.5\""});
  expect_rejected("N,D,loss\n1e9,2e10,0\n", {"line 2", "\"loss\"", "\"0\""});
  expect_rejected("N,D,loss\n1e9,2e10,2.5abc\n", {"line 2", "\"loss\"", "not a number"});
  expect_rejected("N,D,loss\n1e9,1e999,2.5\n", {"line 2", "\"D\"", "out of range"});
  expect_rejected("N,D,loss\n\"1e9\",2e10,\"2.5\n", {"line 2", "unterminated"});
  expect_rejected("N,D,loss\n\"1e9\"x,2e10,2.5\n", {"line 2", "after a closing quote"});
  expect_rejected("N,D,loss\n1e\"9,2e10,2.5\n", {"line 2", "quote inside"});
  expect_rejected("N,D,loss\n1e9,2e10\n", {"line 2", "2 fields", "header has 3"});
  expect_rejected("N,D,loss\n1e9,2e10,2.5,7\n", {"line 2", "4 fields"});
  // D = C/6N underflowing to zero.
  expect_rejected("N,C,loss\n1e300,1e-300,2.5\n", {"line 2", "\"C\"", "D = C / (6N)"});
}

TEST(CsvLadder, MissingAmbiguousAndEmpty) {
  expect_rejected("N,D,L\n1e9,2e10,2.5\n", {"line 1", "\"loss\"", "missing", "\"L\""});
  expect_rejected("N,tokens,loss\n1e9,2e10,2.5\n", {"no tokens column"});
  expect_rejected("N,D,D,loss\n1e9,2e10,2e10,2.5\n", {"\"D\"", "more than once"});
  expect_rejected("", {"empty"});
  expect_rejected("N,D,loss\n", {"no data rows"});
  CsvLadderOptions o;
  o.max_loss = 2.0;
  expect_rejected("N,D,loss\n1e9,2e10,2.5\n", {"loss cut", "no usable rows"}, o);
  CsvLadderOptions both;
  both.d_column = "D";
  both.c_column = "C";
  EXPECT_THROW(parse_csv_ladder("N,D,loss\n1e9,2e10,2.5\n", "mem.csv", both),
               std::invalid_argument);
}

TEST(CsvLadder, FilesTooLargeOrMissing) {
  const auto dir = std::filesystem::temp_directory_path() / "napkin_csv_ladder_test";
  std::filesystem::create_directories(dir);
  const auto big = dir / "huge.csv";
  {
    std::ofstream f(big);
    f << "N,D,loss\n";
  }
  std::filesystem::resize_file(big, (std::uintmax_t{64} << 20) + 1);  // sparse: no disk cost
  try {
    load_csv_ladder(big.string());
    ADD_FAILURE() << "a 64 MiB + 1 byte file was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("huge.csv"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("limit"), std::string::npos) << e.what();
  }
  std::filesystem::remove(big);
  try {
    load_csv_ladder((dir / "absent.csv").string());
    ADD_FAILURE() << "a missing file was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("absent.csv"), std::string::npos) << e.what();
  }
  CsvLadderOptions small;
  small.max_bytes = 10;
  expect_rejected("N,D,loss\n1e9,2e10,2.5\n", {"limit is 10 bytes"}, small);
  std::filesystem::remove_all(dir);
}

// A large ladder is read and parsed under its progress callback, which sees
// every byte and can stop the load mid-read (a Cancel button, --max-seconds,
// Ctrl+C): the load then throws csv::Stopped, not a parse error.
TEST(CsvLadder, ALargeFileIsReadUnderProgressAndCanBeStoppedMidRead) {
  const auto dir = std::filesystem::temp_directory_path() / "napkin_csv_ladder_progress";
  std::filesystem::create_directories(dir);
  const auto path = dir / "large.csv";
  std::string text = "N,D,loss\n";
  for (int i = 0; text.size() < 4'000'000; ++i)
    text += std::to_string(1'000'000'000 + i) + ",2e10," + (i % 2 ? "2.5" : "2.25") + "\n";
  {
    std::ofstream f(path, std::ios::binary);
    f << text;
  }
  const auto size = static_cast<std::int64_t>(text.size());
  CsvLadderOptions o;
  std::int64_t calls = 0, most = 0, total_seen = 0;
  o.progress = [&](std::int64_t done, std::int64_t total) {
    ++calls;
    most = std::max(most, done);
    total_seen = total;
    return true;
  };
  const CsvLadder all = load_csv_ladder(path.string(), o);
  EXPECT_GT(all.points.size(), 100'000u);
  EXPECT_EQ(most, size);
  EXPECT_EQ(total_seen, size);
  EXPECT_GE(calls, 2 * size / csv::kProgressBytes);  // the read and the parse

  // A cancel flag set from elsewhere: the load stops at the next report.
  for (const std::int64_t stop_after : {std::int64_t{3}, size / csv::kProgressBytes + 3}) {
    SCOPED_TRACE(stop_after < 10 ? "while reading" : "while parsing");
    std::int64_t reports = 0;
    bool cancel = false;
    o.progress = [&](std::int64_t, std::int64_t) {
      if (++reports == stop_after) cancel = true;
      return !cancel;
    };
    try {
      (void)load_csv_ladder(path.string(), o);
      ADD_FAILURE() << "the load was not stopped";
    } catch (const csv::Stopped& e) {
      EXPECT_NE(std::string(e.what()).find("large.csv"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("stopped"), std::string::npos) << e.what();
    }
    EXPECT_EQ(reports, stop_after);
  }
  std::filesystem::remove_all(dir);
}

// The CSV import dialog's model: a preview with a guessed mapping, and a
// tolerant import that skips bad rows and lists each with its line and reason.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "csv_ladder.h"
#include "io_test_util.h"

using namespace io_test;

using namespace napkin;

namespace {

std::string error_of(auto f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return {};
}

LadderColumns nd_loss() {
  LadderColumns c;
  c.n_params = "N";
  c.tokens = "D";
  c.loss = "loss";
  return c;
}

}  // namespace

TEST(CsvImport, PreviewGuessesTheChinchillaColumns) {
  const CsvPreview p = preview_csv_ladder(read_csv_file(kChinchilla), kChinchilla, 5);
  ASSERT_EQ(p.header.size(), 7u);
  EXPECT_EQ(p.header[3], "Model Size");
  EXPECT_FALSE(p.data_rows.has_value());  // five rows read of 245: the count is the import's
  EXPECT_EQ(preview_csv_ladder(read_csv_file(kChinchilla), kChinchilla, 245).data_rows, 245);
  ASSERT_EQ(p.rows.size(), 5u);
  EXPECT_EQ(p.rows[0].line, 2);
  EXPECT_EQ(p.rows[0].fields[6], "5.005581996196243");
  EXPECT_TRUE(p.complete());
  EXPECT_EQ(p.guess.n_params, "Model Size");
  EXPECT_EQ(p.guess.tokens, "Training FLOP");
  EXPECT_EQ(p.guess.tokens_kind, TokensKind::flops);
  EXPECT_EQ(p.guess.loss, "loss");
  EXPECT_EQ(p.guess.budget, "");
  EXPECT_TRUE(p.notes.empty());
}

TEST(CsvImport, PreviewReadsUnitsFromTheHeader) {
  const CsvPreview p = preview_csv_ladder(
      "params (M),tokens_B,Loss (bits),IsoFLOP budget [PF-days]\n70,1.4,3.1,0.1\n", "u.csv");
  EXPECT_EQ(p.guess.n_params, "params (M)");
  EXPECT_DOUBLE_EQ(p.guess.n_params_scale, 1e6);
  EXPECT_EQ(p.guess.tokens, "tokens_B");
  EXPECT_EQ(p.guess.tokens_kind, TokensKind::tokens);
  EXPECT_DOUBLE_EQ(p.guess.tokens_scale, 1e9);
  EXPECT_EQ(p.guess.loss_unit, LossUnit::bits);
  EXPECT_EQ(p.guess.budget, "IsoFLOP budget [PF-days]");
  EXPECT_DOUBLE_EQ(p.guess.budget_scale, 8.64e19);
  // The guess imports: 70M parameters, 1.4B tokens, 3.1 bits = 2.149 nats.
  const CsvImport imp = import_csv_ladder(
      "params (M),tokens_B,Loss (bits),IsoFLOP budget "
      "[PF-days]\n70,1.4,3.1,0.1\n",
      "u.csv", p.guess, LossCut{false, 1});
  ASSERT_EQ(imp.ladder.points.size(), 1u);
  EXPECT_DOUBLE_EQ(imp.ladder.points[0].n_params, 70e6);
  EXPECT_DOUBLE_EQ(imp.ladder.points[0].n_tokens, 1.4e9);
  EXPECT_NEAR(imp.ladder.points[0].loss, 3.1 * std::log(2.0), 1e-12);
  EXPECT_DOUBLE_EQ(imp.ladder.points[0].budget_flops, 0.1 * 8.64e19);
}

TEST(CsvImport, PreviewSaysWhatIsMissingInPlainWords) {
  const CsvPreview p = preview_csv_ladder("N,loss,seed\n1e9,2.5,1\n", "m.csv");
  EXPECT_FALSE(p.complete());
  ASSERT_EQ(p.missing.size(), 1u);
  const std::string& m = p.missing[0];
  EXPECT_NE(m.find("tokens"), std::string::npos) << m;
  EXPECT_NE(m.find("training compute"), std::string::npos) << m;
  EXPECT_NE(m.find("\"N\", \"loss\", \"seed\""), std::string::npos) << m;
  for (const char* flag : {"d_column", "c_column", "--d-col", "--c-col"})
    EXPECT_EQ(m.find(flag), std::string::npos) << m;
  EXPECT_EQ(p.guess.tokens, "");
  // Small numbers in a parameters column are flagged as a likely unit.
  const CsvPreview small = preview_csv_ladder("N,D,loss\n70,1.4e9,3\n400,8e9,2.8\n", "s.csv");
  ASSERT_EQ(small.notes.size(), 1u);
  EXPECT_NE(small.notes[0].find("millions"), std::string::npos);
}

TEST(CsvImport, BadRowsAreSkippedAndListedWithLineAndReason) {
  const std::string text =
      "N,D,loss\n"
      "1e9,2e10,2.5\n"    // 2 ok
      "1e9,abc,2.5\n"     // 3 non-numeric
      "1e9,2e10\n"        // 4 ragged
      "-1e9,2e10,2.5\n"   // 5 non-positive
      "2e9,4e10,3.9\n"    // 6 over the cut
      "1e9,,2.5\n"        // 7 empty
      "1e\"9,2e10,2.5\n"  // 8 malformed
      "3e9,6e10,2.3\n"    // 9 ok
      "1e9,1e999,2.5\n";  // 10 out of range
  const CsvImport imp = import_csv_ladder(text, "/some/folder/runs.csv", nd_loss(), {true, 3.5});
  EXPECT_EQ(imp.ladder.file_name, "runs.csv");
  EXPECT_EQ(imp.ladder.data_rows, 9);
  ASSERT_EQ(imp.ladder.points.size(), 3u);  // lines 2, 6, 9: readable
  EXPECT_EQ(imp.kept(), 2);
  ASSERT_EQ(imp.over_loss_cut.size(), 1u);
  EXPECT_EQ(imp.over_loss_cut[0].line, 6);
  EXPECT_EQ(imp.over_loss_cut[0].reason, CsvSkipReason::over_loss_cut);
  const struct {
    std::int64_t line;
    CsvSkipReason reason;
    const char* column;
  } expected[] = {{3, CsvSkipReason::non_numeric, "D"},  {4, CsvSkipReason::ragged, ""},
                  {5, CsvSkipReason::non_positive, "N"}, {7, CsvSkipReason::empty, "D"},
                  {8, CsvSkipReason::malformed, ""},     {10, CsvSkipReason::out_of_range, "D"}};
  ASSERT_EQ(imp.skipped.size(), std::size(expected));
  for (std::size_t i = 0; i < imp.skipped.size(); ++i) {
    EXPECT_EQ(imp.skipped[i].line, expected[i].line) << i;
    EXPECT_EQ(imp.skipped[i].reason, expected[i].reason) << i;
    EXPECT_EQ(imp.skipped[i].column, expected[i].column) << i;
    EXPECT_FALSE(imp.skipped[i].message.empty());
  }
  EXPECT_NE(imp.skipped[0].message.find("\"abc\""), std::string::npos);
  EXPECT_EQ(to_string(CsvSkipReason::over_loss_cut), "over the loss cut");
  EXPECT_FALSE(imp.usable());
  EXPECT_NE(imp.problem().find("at least 5"), std::string::npos) << imp.problem();
  EXPECT_NE(imp.problem().find("6 cannot be read"), std::string::npos) << imp.problem();
}

TEST(CsvImport, ChinchillaWithTheLossCutKeepsThePapers240) {
  LadderColumns c;
  c.n_params = "Model Size";
  c.tokens = "Training FLOP";
  c.tokens_kind = TokensKind::flops;
  c.loss = "loss";
  const CsvImport imp = import_csv_ladder(read_csv_file(kChinchilla), kChinchilla, c, {});
  EXPECT_TRUE(imp.skipped.empty());
  EXPECT_EQ(imp.ladder.points.size(), 245u);  // embedded before the cut
  EXPECT_EQ(imp.over_loss_cut.size(), 5u);
  EXPECT_EQ(imp.kept(), 240);
  EXPECT_TRUE(imp.usable());
  EXPECT_EQ(imp.problem(), "");
  // The same numbers as the strict loader.
  CsvLadderOptions o;
  o.n_column = "Model Size";
  o.c_column = "Training FLOP";
  const CsvLadder strict = load_csv_ladder(kChinchilla, o);
  EXPECT_EQ(strict.points, imp.ladder.points);
}

TEST(CsvImport, MappingErrorsListTheHeader) {
  LadderColumns c = nd_loss();
  c.loss = "final_loss";
  const std::string e =
      error_of([&] { import_csv_ladder("N,D,loss\n1e9,2e10,2.5\n", "m.csv", c); });
  EXPECT_NE(e.find("\"final_loss\""), std::string::npos) << e;
  EXPECT_NE(e.find("the header has \"N\", \"D\", \"loss\""), std::string::npos) << e;
  // An unterminated quote cannot be skipped: the rows after it are lost.
  EXPECT_NE(error_of([&] {
              import_csv_ladder("N,D,loss\n\"1e9,2e10,2.5\n2e9,4e10,2.4\n", "q.csv", nd_loss());
            }).find("unterminated"),
            std::string::npos);
  EXPECT_NE(error_of([&] { import_csv_ladder("", "e.csv", nd_loss()); }).find("empty"),
            std::string::npos);
}

TEST(CsvImport, StrictModeSkipsOnRequest) {
  const std::string text = "N,D,loss\n1e9,2e10,2.5\n1e9,x,2.5\n2e9,4e10,2.4\n";
  EXPECT_THROW(parse_csv_ladder(text, "s.csv"), std::invalid_argument);
  CsvLadderOptions o;
  o.skip_bad_rows = true;
  const CsvLadder l = parse_csv_ladder(text, "s.csv", o);
  EXPECT_EQ(l.points.size(), 2u);
  EXPECT_EQ(l.rows, 3);
  ASSERT_EQ(l.skipped.size(), 1u);
  EXPECT_EQ(l.skipped[0].line, 3);
  EXPECT_EQ(l.skipped[0].reason, CsvSkipReason::non_numeric);
  // The "no tokens column" message names what the header has, not an option.
  const std::string e = error_of([] { parse_csv_ladder("N,tokens_x,loss\n1,2,3\n", "t.csv"); });
  EXPECT_NE(e.find("the header has \"N\", \"tokens_x\", \"loss\""), std::string::npos) << e;
  EXPECT_EQ(e.find("d_column"), std::string::npos) << e;
}

// Issue 27.11: a "budget" column of labels is not auto-mapped as the numeric
// budget (which refused every row); the problem reads as a sentence.
TEST(CsvImport, ATextColumnIsNotGuessedAsANumber) {
  const std::string csv =
      "N,D,loss,budget\n"
      "1e8,2e9,3.1,small\n1e8,4e9,3.0,small\n2e8,4e9,2.9,medium\n"
      "2e8,8e9,2.8,medium\n4e8,8e9,2.7,large\n4e8,1.6e10,2.6,large\n";
  const CsvPreview p = preview_csv_ladder(csv, "labels.csv");
  EXPECT_EQ(p.guess.budget, "");
  EXPECT_TRUE(p.complete());
  ASSERT_FALSE(p.notes.empty());
  EXPECT_NE(p.notes.back().find("\"budget\" holds text (\"small\")"), std::string::npos)
      << p.notes.back();
  const CsvImport imp = import_csv_ladder(csv, "labels.csv", p.guess, {});
  EXPECT_TRUE(imp.skipped.empty());
  EXPECT_EQ(imp.kept(), 6);
  // A column needed for the fit that holds text is missing, said why.
  const CsvPreview q = preview_csv_ladder("N,D,loss\n1e8,2e9,low\n", "q.csv");
  EXPECT_FALSE(q.complete());
  EXPECT_EQ(q.guess.loss, "");
  // The problem of a ladder too short for a fit starts a sentence.
  const CsvImport few = import_csv_ladder("N,D,loss\n1e8,2e9,3.1\n", "few.csv", p.guess, {});
  EXPECT_FALSE(few.usable());
  EXPECT_EQ(few.problem().rfind("A fit needs", 0), 0u) << few.problem();
}

// Task (issue 28): the dialog's preview reads only its rows. A text whose
// tail cannot be parsed at all (an unterminated quote, which the import
// refuses) previews, because the preview never reaches it; a million rows
// preview as eight.
TEST(CsvImport, ThePreviewReadsOnlyItsRows) {
  std::string text = "N,D,loss\n";
  for (int i = 0; i < 30; ++i) text += "1e9,2e10,2.5\n";
  text += "1e9,\"2e10,2.5\n";  // line 32: never closed
  const CsvPreview p = preview_csv_ladder(text, "tail.csv", 8);
  EXPECT_EQ(p.rows.size(), 8u);
  EXPECT_FALSE(p.data_rows.has_value());
  EXPECT_TRUE(p.complete());
  EXPECT_THROW(import_csv_ladder(text, "tail.csv", p.guess), std::invalid_argument);
  // All of it read when the rows end first: the count is exact.
  const CsvPreview whole = preview_csv_ladder("N,D,loss\n1e9,2e10,2.5\n\n", "w.csv", 8);
  EXPECT_EQ(whole.data_rows, 1);

  std::string big = "N,D,loss\n";
  big.reserve(20'000'000);
  for (int i = 0; i < 1'000'000; ++i) big += "1000000000,20000000000,2.5\n";
  const CsvPreview b = preview_csv_ladder(big, "big.csv", 8);
  EXPECT_EQ(b.rows.size(), 8u);
  EXPECT_EQ(b.rows.back().line, 9);
  // The import parses it all, and can be stopped on the way.
  std::int64_t polls = 0;
  const CsvImport all =
      import_csv_ladder(big, "big.csv", b.guess, {}, [&polls](std::int64_t, std::int64_t) {
        ++polls;
        return true;
      });
  EXPECT_EQ(all.ladder.data_rows, 1'000'000);
  EXPECT_GT(polls, 100);  // 28 MB in 64 KiB steps
  EXPECT_THROW(import_csv_ladder(big, "big.csv", b.guess, {},
                                 [](std::int64_t done, std::int64_t) { return done < 1'000'000; }),
               csv::Stopped);
}

// The one CSV reader (csv.h): RFC 4180 quoting, line ends, a byte-order
// mark, blank and empty trailing lines, the refusals, and a read stopped by
// its progress callback.
#include "csv.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "expect_throw.h"

using namespace napkin;

TEST(CsvText, ReadsQuotedFieldsCrLfAndSkipsBlankLines) {
  const CsvText csv("a,b,c\r\n1,\"x, \"\"y\"\"\",3\r\n\r\n4,5\n", "t.csv");
  ASSERT_EQ(csv.size(), 2u);
  EXPECT_EQ(csv.at(0, csv.column("b")), "x, \"y\"");
  EXPECT_EQ(csv.count(0, csv.column("c")), 3);
  EXPECT_EQ(csv.at(1, csv.column("c")), "");  // a missing trailing field reads as empty
  EXPECT_EQ(csv.line(1), 4);
  EXPECT_DOUBLE_EQ(csv.real(1, 0), 4.0);
}

TEST(CsvText, RefusesNamingTheSetLineAndColumn) {
  const CsvText csv("a,b\n1,x\n", "runs.csv");
  EXPECT_THROW_NAMING(csv.real(0, 1), "runs.csv: line 2, column \"b\"");
  EXPECT_THROW_NAMING(csv.column("zz"), "no column \"zz\"");
  EXPECT_THROW_NAMING(CsvText("a\n1,2\n", "w.csv"), "w.csv: line 2");
  EXPECT_THROW_NAMING(CsvText("a\n\"1\n", "q.csv"), "unterminated quoted field");
}

TEST(Csv, QuotedFieldsHoldCommasQuotesAndLineBreaks) {
  const csv::Table t =
      csv::read_table("name,note\n\"a, b\",\"say \"\"hi\"\"\"\n\"two\nlines\",x\nlast,y\n", "q.csv",
                      1 << 20, false);
  ASSERT_EQ(t.records.size(), 3u);
  EXPECT_EQ(t.records[0].fields[0].text, "a, b");
  EXPECT_TRUE(t.records[0].fields[0].quoted);
  EXPECT_EQ(t.records[0].fields[1].text, "say \"hi\"");
  EXPECT_EQ(t.records[1].fields[0].text, "two\nlines");
  EXPECT_EQ(t.records[1].line, 3);
  EXPECT_EQ(t.records[2].line, 5);  // a record spanning lines counts them
  // Blanks around an unquoted field are trimmed; inside quotes they stay.
  const csv::Table b = csv::read_table("a,b\n 1 ,\" 2 \"\n", "b.csv", 1 << 20, false);
  EXPECT_EQ(b.records[0].fields[0].text, "1");
  EXPECT_EQ(b.records[0].fields[1].text, " 2 ");
}

TEST(Csv, LineEndsByteOrderMarkAndEmptyTrailingLines) {
  for (const char* text : {"a,b\n1,2\n3,4\n", "a,b\r\n1,2\r\n3,4\r\n", "a,b\r1,2\r3,4\r",
                           "\xEF\xBB\xBF"
                           "a,b\n1,2\n3,4",
                           "a,b\n1,2\n3,4\n\n\n", "a,b\r\n1,2\r\n\r\n3,4\r\n\r\n"}) {
    const CsvText csv(text, "e.csv");
    ASSERT_EQ(csv.size(), 2u) << text;
    EXPECT_EQ(csv.header()[0], "a") << text;  // the mark is not part of the first name
    EXPECT_EQ(csv.count(1, csv.column("b")), 4) << text;
  }
  EXPECT_EQ(CsvText("a,b\n", "h.csv").size(), 0u);
  EXPECT_THROW_NAMING(CsvText("", "empty.csv"), "empty");
  EXPECT_THROW_NAMING(CsvText("\n\n", "blank.csv"), "empty");
}

TEST(Csv, StrictAndTolerantStrayQuotes) {
  EXPECT_THROW_NAMING(csv::read_table("a,b\n1,x\"y\n", "s.csv", 1 << 20, false),
                      "a quote inside an unquoted field");
  const csv::Table t = csv::read_table("a,b\n1,x\"y\n2,3\n", "s.csv", 1 << 20, true);
  ASSERT_EQ(t.records.size(), 2u);
  EXPECT_FALSE(t.records[0].error.empty());
  EXPECT_TRUE(t.records[1].error.empty());
}

TEST(Csv, RefusesOtherEncodingsAndOversizeText) {
  EXPECT_THROW_NAMING(csv::read_table(std::string("\xFF\xFE"
                                                  "a\0,\0",
                                                  6),
                                      "u.csv", 1 << 20, false),
                      "UTF-16");
  EXPECT_THROW_NAMING(csv::read_table(std::string("a,b\n1,\0\n", 8), "z.csv", 1 << 20, false),
                      "binary");
  EXPECT_THROW_NAMING(csv::read_table("a,b\n1,2\n", "big.csv", 4, false), "the limit is 4 bytes");
}

// A long read reports its progress and stops when asked, mid-text.
TEST(Csv, AProgressCallbackSeesTheReadAndCanStopIt) {
  std::string text = "N,D,loss\n";
  while (text.size() < 2'000'000) text += "1000000000,20000000000,2.5\n";
  std::int64_t calls = 0, last = 0, total = 0;
  const csv::Table t =
      csv::read_table(text, "big.csv", 1 << 24, false, [&](std::int64_t done, std::int64_t all) {
        EXPECT_GE(done, last);
        last = done;
        total = all;
        ++calls;
        return true;
      });
  EXPECT_GE(calls, 2'000'000 / csv::kProgressBytes);
  EXPECT_EQ(last, static_cast<std::int64_t>(text.size()));
  EXPECT_EQ(total, static_cast<std::int64_t>(text.size()));
  EXPECT_GT(t.records.size(), 50'000u);
  // Stopped at the third report: the read throws Stopped, not a parse error.
  int reports = 0;
  try {
    (void)csv::read_table(text, "big.csv", 1 << 24, false,
                          [&](std::int64_t, std::int64_t) { return ++reports < 3; });
    ADD_FAILURE() << "the read did not stop";
  } catch (const csv::Stopped& e) {
    EXPECT_NE(std::string(e.what()).find("big.csv: stopped at line"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(reports, 3);
}

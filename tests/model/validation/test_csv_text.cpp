#include "csv_text.h"

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
  EXPECT_THROW_NAMING(csv.real(0, 1), "runs.csv, line 2, column \"b\"");
  EXPECT_THROW_NAMING(csv.column("zz"), "no column \"zz\"");
  EXPECT_THROW_NAMING(CsvText("a\n1,2\n", "w.csv"), "w.csv, line 2");
  EXPECT_THROW_NAMING(CsvText("a\n\"1\n", "q.csv"), "not closed");
}

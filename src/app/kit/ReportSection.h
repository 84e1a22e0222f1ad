// What a panel contributes to the report: curated tables of
// (name, value, unit, note) for a reader of the memo, checks with verdicts,
// formulas, and its charts. No widget text, no status sentences.
#pragma once

#include <QString>
#include <vector>

namespace napkin {

class PlotWidget;

enum class Tone { normal, ok, warn, fail };

struct ReportRow {
  QString name;
  QString value;
  QString unit;
  QString note;
  Tone tone = Tone::normal;
};

struct ReportTable {
  QString title;
  std::vector<ReportRow> rows;
  bool verdicts = false;  // values are OK / FAIL badges (checks), not numbers
};

struct ReportFormula {
  QString formula;  // "C = 6ND; N = √(C / 6r), D = r·N"
  QString meaning;  // "Chinchilla split, r tokens/parameter"
};

struct ReportSection {
  QString title;    // "Budget planner"
  QString summary;  // one sentence: what the section shows and where it comes from
  std::vector<ReportTable> tables;
  std::vector<ReportFormula> formulas;
  std::vector<PlotWidget*> charts;  // in this order
  int charts_per_row = 2;           // 1: each chart across the page (dense labels)
};

}  // namespace napkin

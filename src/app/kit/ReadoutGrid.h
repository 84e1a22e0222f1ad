// Named read-outs: each row shows a name, a value with its unit (bold,
// coloured by its tone: ok / warn / fail) and, when a baseline value is set, the change from
// it (absolute and %, green when better, red when worse for that quantity).
// The rows flow into as many columns as the width allows (one on a narrow
// window), grouped in sections whose titles say what the rows are about.
// Values are selectable; double-clicking a number selects all of it; the
// context menu copies every row as tab-separated text.
#pragma once

#include <QLabel>
#include <QWidget>
#include <functional>
#include <optional>
#include <vector>

#include "ReportSection.h"
#include "compare.h"

namespace napkin {

// Which way a quantity is better (for the colour of its change): the
// model's Better (compare.h), so the Compare dock and the read-outs agree.

struct ReadoutSpec {
  QString key = {};      // object name of the value label: "readout_<key>"
  QString name = {};     // "Compute C"
  QString tooltip = {};  // how the value is computed
  Better better = Better::none;
  // Formats the absolute change from the baseline (default: 3 significant digits).
  std::function<QString(double)> format = {};
  QString widest = {};  // a sample of the widest value, so a changing number never relayouts
  // Formats the change of Readout::second, when the row shows a second number
  // ("44.7 days, $5,489,439": the dollars' change beside the days').
  std::function<QString(double)> second_format = {};
};

struct Readout {
  QString value = {};  // "1.026e+24"
  QString unit = {};   // "FLOPs"
  QString note = {};   // what it is about: "Llama-3-70B, ZeRO-3 over DP 64" (tooltip, report)
  Tone tone = Tone::normal;
  std::optional<double> number = {};  // the value as a number, for the change from a baseline
  std::optional<double> second = {};  // a second number of the value (see second_format)
};

// What a row of the baseline plan showed: its number, its second number and
// its text (a verdict such as "binds" that the numbers alone do not carry).
struct BaselineReadout {
  std::optional<double> number = {};
  std::optional<double> second = {};
  QString text = {};
};

// A label whose double-click selects the whole number under the mouse
// ("2.956e+24", not "956e").
// Its text becomes selectable when the mouse comes near (selectable labels
// lay out a text document on every paint; a read-out repainted on every
// slider tick should not pay for that while nobody is selecting).
class NumberLabel : public QLabel {
  Q_OBJECT
 public:
  explicit NumberLabel(QWidget* parent = nullptr);

 protected:
  void enterEvent(QEnterEvent* event) override;
  void leaveEvent(QEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;

 private:
  void setSelectable(bool on);
};

class ReadoutGrid : public QWidget {
  Q_OBJECT
 public:
  struct Row {
    int index = -1;
  };
  struct Section {
    int index = -1;
  };

  explicit ReadoutGrid(QWidget* parent = nullptr);

  // Starts a section; rows added after it belong to it.
  Section addSection(const QString& title);
  void setSectionTitle(Section s, const QString& title);
  Row add(const ReadoutSpec& spec);
  void set(Row row, const Readout& readout);
  // The baseline's number for a row (nullopt: no baseline, no change shown).
  void setBaseline(Row row, std::optional<double> number);
  // With its second number and text: the change names both numbers, and an
  // equal number under another text reads "was …", not "= baseline".
  void setBaseline(Row row, const BaselineReadout& baseline);
  void clearBaselines();
  void setMaxColumns(int n);

  int rowCount() const { return static_cast<int>(rows_.size()); }
  int columns() const { return columns_; }
  // "1.026e+24 FLOPs": the value and its unit as the user reads them.
  QString text(Row row) const;
  QString name(Row row) const;
  const Readout& readout(Row row) const;
  // "+25.0 % (+2.57e+23)", or "" without a baseline.
  QString deltaText(Row row) const;
  NumberLabel* valueLabel(Row row) const;
  QString sectionTitle(Section s) const;
  // Every row: name, value, unit, note and tone (for the report and tests).
  std::vector<ReportRow> reportRows() const;
  // One table per section (titled as the section), for the report.
  std::vector<ReportTable> reportTables() const;
  // All rows as tab-separated text (what "Copy read-outs" puts on the clipboard).
  QString toTsv() const;

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;

 protected:
  void resizeEvent(QResizeEvent* event) override;
  void contextMenuEvent(QContextMenuEvent* event) override;
  void changeEvent(QEvent* event) override;

 private:
  struct RowWidgets {
    ReadoutSpec spec;
    int section = 0;
    Readout readout;
    std::optional<double> baseline;
    std::optional<double> baseline_second;
    QString baseline_text;
    QLabel* name = nullptr;
    NumberLabel* value = nullptr;  // "value unit"
    QLabel* delta = nullptr;
  };
  struct SectionWidgets {
    QLabel* title = nullptr;
    std::vector<int> rows;
  };
  int columnsFor(int width) const;
  int cellWidth() const;
  // Height of the grid laid out in `columns` at `width` (titles wrap).
  int layoutHeight(int columns, int width) const;
  int titleHeight(const QLabel* title, int width) const;
  void relayout();
  void measure();
  void updateDelta(RowWidgets& r);
  void applyTone(RowWidgets& r);

  std::vector<RowWidgets> rows_;
  std::vector<SectionWidgets> sections_;
  int columns_ = 1;
  int max_columns_ = 3;
  int name_w_ = 0, value_w_ = 0, delta_w_ = 0, row_h_ = 0, title_h_ = 0;
};

}  // namespace napkin

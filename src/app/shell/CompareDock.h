// The Compare dock: plan A (the pinned baseline) against plan B (the current
// scenario): every input that differs (name, A, B) and every headline output
// of src/model/compare.h (A, B, Δ, which plan is better). Sortable by any
// column, Ctrl+C copies the selected rows as tab-separated text, and Export
// CSV… writes the whole list through the atomic writer.
//
// The headline outputs take a fit and an MoE run (~0.2 s), so they are
// computed off the UI thread: plan A once when pinned, plan B after the
// scenario settles (and only while the dock is shown); a generation counter
// drops results that a newer change has made stale.
#pragma once

#include <QDockWidget>
#include <memory>

class QLabel;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QStandardItemModel;
class QTableView;
class QTimer;

namespace napkin {

class BaselineController;
class ScenarioModel;

class CompareDock : public QDockWidget {
  Q_OBJECT
 public:
  enum Column { kind_col, name_col, a_col, b_col, delta_col, better_col, column_count };

  CompareDock(ScenarioModel* model, BaselineController* baseline, QWidget* parent = nullptr);
  ~CompareDock() override;

  QTableView* table() const { return table_; }
  QSortFilterProxyModel* proxy() const { return proxy_; }
  // The status line above the list ("Computing…", "3 inputs differ", "Pin a baseline…").
  QString statusText() const;
  bool isBusy() const;
  // Brings the list up to date now (also when hidden) and waits, bounded,
  // for the background work: for tests and the report.
  void settle();

  // The rows as shown (sorted), tab-separated; `selected_only` for the selection.
  QString tsv(bool selected_only) const;
  // Copies the selected rows (all rows when none is selected) to the clipboard.
  void copySelection();
  // The whole list as CSV (the shown columns, then the numbers for a spreadsheet).
  QString csv() const;
  // Writes csv() atomically; false with *error (path and the OS's reason).
  bool exportCsv(const QString& path, QString* error) const;

 signals:
  // The Export CSV… button: the window asks for a path and calls exportCsv.
  void exportRequested();

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  void baselineChanged();
  void scenarioChanged();
  void computeB();
  void rebuild();
  void setStatus();

  ScenarioModel* model_;
  BaselineController* baseline_;
  QLabel* status_ = nullptr;
  QProgressBar* busy_ = nullptr;
  QTableView* table_ = nullptr;
  QStandardItemModel* items_ = nullptr;
  QSortFilterProxyModel* proxy_ = nullptr;
  QPushButton* export_ = nullptr;
  QTimer* debounce_ = nullptr;
  // The background work and its results.
  struct Work;
  std::unique_ptr<Work> work_;
  bool stale_b_ = true;
};

}  // namespace napkin

// The Parallelism planner panel (Phase 04): how to split a training step of
// the scenario's model over its chips. Controls edit the shared scenario
// (the step's set-up, locks on layout axes, the Budget's MFU source); the
// layout search runs off the UI thread when its inputs change (a generation
// counter drops results of stale inputs); refresh() re-evaluates the layout
// the scenario runs for the current inputs at once (make_parallel_view) and
// shows it: read-outs, the ranked layout table and four plots, each its own
// class drawing from the view.
#pragma once

#include <QFutureWatcher>
#include <memory>
#include <optional>

#include "ScenarioPanel.h"
#include "parallel/ParallelControls.h"
#include "parallel/ParallelReadouts.h"
#include "parallel/plots/ParallelPlot.h"
#include "parallel_view.h"

class QCheckBox;
class QHBoxLayout;
class QLabel;
class QProgressBar;
class QPushButton;
class QToolButton;
class QTableView;

namespace napkin {

class CalibrateRunsDialog;
class ControlColumn;
class LayoutFilter;
class LayoutTableModel;

class ScenarioModel;
class StageMemoryPlot;

class ParallelPanel : public ScenarioPanel {
  Q_OBJECT
 public:
  explicit ParallelPanel(ScenarioModel* model, QWidget* parent = nullptr);
  ~ParallelPanel() override;

  QString panelKey() const override { return QStringLiteral("parallel"); }
  QString title() const override { return tr("Parallelism"); }
  QString help() const override;
  std::vector<PlotWidget*> plots() const override;
  ReportSection reportSection() const override;
  bool isBusy() const override { return running_; }
  void setBaseline(const Scenario* baseline) override;

  const ParallelView& view() const { return view_; }
  const SearchResult& search() const { return search_; }
  const ParallelControls& controls() const { return controls_; }
  const ParallelReadouts& readouts() const { return *readouts_; }
  QTableView* table() const { return table_; }
  LayoutTableModel* tableModel() const { return table_model_; }
  LayoutFilter* tableFilter() const { return filter_; }
  QCheckBox* showAll() const { return show_all_; }
  QPushButton* fastestButton() const { return fastest_; }
  // "Copy launch flags": the running layout as Megatron-LM arguments or a
  // torchtitan TOML (framework_config.h), what the framework cannot express
  // as "# note:" lines; copied to the clipboard and returned ("" when no
  // layout runs).
  QString copyLaunchFlags(bool torchtitan);
  // "Cluster profile": a profile written by napkin-cli calibrate -o replaces
  // the datasheet constants (one undo step); "" on success, else why not (a
  // malformed file, naming the key; a profile of another chip). Clearing
  // returns to the datasheet constants.
  QString loadClusterProfile(const QString& path);
  void clearClusterProfile();
  QToolButton* profileButton() const { return profile_; }
  // "Calibrate on measured runs…": the dialog, shown (window-modal); a profile
  // it saves is loaded when it closes with Save.
  CalibrateRunsDialog* openCalibrateDialog();
  StageMemoryPlot* memoryPlot() const;
  // The layout of a row of the table as shown (after sorting and filtering).
  const LayoutResult& layoutAtRow(int view_row) const;
  // Blocks (running the event loop) until no search is in flight (tests, report).
  void waitForSearch();

 signals:
  // A search finished and its results are shown.
  void searchFinished();

 protected:
  void refresh() override;
  void gestureChanged(bool on) override;

 private:
  // The constructor's parts (ParallelPanel.cpp).
  QHBoxLayout* buildTools(QWidget* layouts);
  void buildTable(QWidget* layouts);
  void firstSearch();
  struct Outcome {
    std::uint64_t generation = 0;
    SearchResult result;
    std::string error;
  };
  // What the search depends on: the job and the settings apart from the
  // chosen row and the MFU source (nullopt when the job is not valid).
  struct SearchKey {
    TrainingJob job;
    ParallelSettings settings;
    bool operator==(const SearchKey&) const = default;
  };
  static std::optional<SearchKey> searchKey(const Scenario& s);
  void startSearch();
  void searchDone(const Outcome& o);
  void choose(const QModelIndex& proxy_index);
  void selectShown();

  ParallelControls controls_;
  std::unique_ptr<ParallelReadouts> readouts_;
  QTableView* table_ = nullptr;
  LayoutTableModel* table_model_ = nullptr;
  LayoutFilter* filter_ = nullptr;
  QCheckBox* show_all_ = nullptr;
  QPushButton* fastest_ = nullptr;
  QToolButton* profile_ = nullptr;
  QToolButton* copy_flags_ = nullptr;
  QLabel* status_ = nullptr;
  QProgressBar* busy_ = nullptr;
  std::vector<ParallelPlot*> plots_;

  ParallelView view_;
  std::optional<ParallelView> baseline_;
  SearchResult search_;
  std::optional<SearchKey> searched_;  // the key of the shown search
  std::optional<SearchKey> running_key_;
  std::string search_error_;
  std::uint64_t generation_ = 0;
  bool running_ = false;
  bool table_stale_ = false;  // a search finished during a drag: the table follows on release
  bool selecting_ = false;    // the table's selection follows the scenario, not the user
  QFutureWatcher<Outcome>* watcher_ = nullptr;
};

}  // namespace napkin

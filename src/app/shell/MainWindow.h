// The main window: one panel per phase over one shared scenario, the File /
// Edit / View / Help menus (shell/MainMenus.cpp), session restore, the status
// bar, a pinned baseline (plan A) with its Compare dock, and autosave. It
// knows the panels only as Panels: adding one is one line in the constructor.
// The file operations live in shell/FileActions.cpp.
#pragma once

#include <QMainWindow>
#include <QMessageBox>
#include <QPageSize>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "Panel.h"
#include "ScenarioModel.h"
#include "report/ReportWriter.h"

class QLabel;
class QMenu;
class QTabWidget;
class QToolButton;
namespace Ui {
class MainWindow;
}

namespace napkin {

class Autosave;
class BaselineController;
class CompareDock;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  enum class Session { restore, fresh };
  explicit MainWindow(Session session = Session::restore, QWidget* parent = nullptr);
  ~MainWindow() override;

  ScenarioModel* model() { return &model_; }
  const ScenarioModel* model() const { return &model_; }
  // The panels in tab order.
  const std::vector<Panel*>& panels() const { return panels_; }
  // The panel of type T (nullptr when there is none).
  template <typename T>
  T* panel() const {
    for (Panel* p : panels_)
      if (auto* t = qobject_cast<T*>(p)) return t;
    return nullptr;
  }
  Panel* currentPanel() const;
  QTabWidget* tabs() const { return tabs_; }

  // File operations without dialogs (the menu actions wrap them). Each
  // returns false and shows an error, leaving the scenario untouched, on failure.
  bool openFile(const QString& path);
  bool saveTo(const QString& path);
  // Imports a model shape from a config.json or a model folder (config.json
  // and, when present, model.safetensors.index.json).
  bool importModel(const QString& path);
  bool importConfig(const QString& path) { return importModel(path); }
  // Imports a training framework's config (Megatron-LM, torchtitan, NeMo,
  // DeepSpeed): model, chips, layout, batch and sequence length.
  bool importTrainingConfig(const QString& path);
  void newScenario();
  void resetToDefaults();
  // Selects a panel by key (Panel::panelKey(): budget, isoflops, moe, roofline).
  bool showPanel(const QString& key);
  // The panels' keys, comma-separated (for messages).
  QString panelKeys() const;
  void setSideNavigation(bool side);
  // Writes the PDF report of the current scenario (atomically); false and an
  // error shown on failure. With a baseline pinned it opens with "Plan A vs plan B".
  bool exportReport(const QString& path);
  // What the report prints: the scenario, the panels and the pinned baseline.
  ReportInput reportInput() const;

  // Plan A: the pinned baseline every panel compares with.
  BaselineController* baseline() const { return baseline_; }
  // Freezes the current scenario as plan A.
  void pinBaseline();
  // Loads a saved scenario as plan A; false and an error shown on failure.
  bool openBaseline(const QString& path);
  void unpinBaseline();
  CompareDock* compareDock() const { return compare_; }
  // The status-bar badge ("Baseline: a.napkin.json"); a click shows the Compare dock.
  QToolButton* baselineBadge() const { return badge_; }
  void showCompare();
  // Writes the Compare list as CSV (atomically); false and an error shown on failure.
  bool exportCompareCsv(const QString& path);
  // Waits (bounded) until background work of the panels has finished.
  void settle();
  void printReport();
  // Edit → Copy napkin-cli command: the command that prints the current
  // panel's numbers from the saved scenario file, to the clipboard; says in
  // the status bar what was copied, or that the scenario must be saved first.
  void copyCliCommand();
  QPageSize reportPageSize() const;
  void setReportPageSize(const QPageSize& size);

  // The text of the last error shown to the user (for tests).
  QString lastError() const { return last_error_; }
  // What the last successful import said (parameters, the checkpoint index's check).
  QString lastImportMessage() const { return last_import_; }
  // Replaces the unsaved-changes question (tests answer it without a dialog).
  void setSavePrompt(std::function<QMessageBox::StandardButton()> prompt) {
    prompt_ = std::move(prompt);
  }
  // Replaces the file dialogs: (purpose, suggested name) → path, "" to cancel.
  // import_config: a config.json or a model folder.
  enum class PathPurpose {
    open,
    save_as,
    import_config,
    export_report,
    open_baseline,
    export_csv,
    import_training_config
  };
  void setPathPrompt(std::function<QString(PathPurpose, const QString&)> prompt) {
    path_prompt_ = std::move(prompt);
  }

  // Crash safety: the scenario is written (debounced) to this instance's own
  // file while it has unsaved changes and removed on a clean exit or a
  // Discard; autosaves of instances that are gone are offered back at start.
  // "" for a fresh (session-less) window or when autosave is off.
  QString autosavePath() const;
  // The folder of every instance's autosave.
  static QString autosaveFolder();
  void setRecoverPrompt(std::function<bool(const QString& when)> prompt) {
    recover_prompt_ = std::move(prompt);
  }
  // Writes the autosave now (the debounce timer calls it).
  void autosave();

  // Renders the window offscreen into a PNG.
  static int screenshot(const QString& file, const QString& panel, const QString& scenario,
                        const QSize& size);

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void addPanel(Panel* panel);
  void buildMenus();
  void updateTitle();
  void updateRecentMenu();
  void addRecent(const QString& path);
  // Asks about unsaved changes; *discarded tells whether they were thrown away.
  bool maybeSave(bool* discarded = nullptr);
  bool save();
  bool saveAs();
  void showError(const QString& title, const QString& text);
  // A status message elided to the bar's room, the whole of it the bar's
  // tooltip while it shows.
  void showLongStatus(const QString& text, int ms);
  void showHelp();
  // `discarded`: the unsaved changes were thrown away, so the next start
  // opens the last saved state (or the defaults).
  void saveSession(bool discarded = false);
  void baselineChanged();
  QString askPath(PathPurpose purpose, const QString& suggested);
  void restoreSession();
  void offerRecovery();

  ScenarioModel model_;
  Session session_;
  // The frame (tabs, menus and their fixed items, status bar): ui/MainWindow.ui.
  std::unique_ptr<Ui::MainWindow> ui_;
  QTabWidget* tabs_ = nullptr;
  std::vector<Panel*> panels_;
  QMenu* recent_menu_ = nullptr;
  QLabel* file_label_ = nullptr;
  QAction* side_nav_action_ = nullptr;
  QString last_error_;
  QString last_import_;
  std::optional<QPageSize> report_page_size_;
  std::function<QMessageBox::StandardButton()> prompt_;
  std::function<bool(const QString&)> recover_prompt_;
  std::function<QString(PathPurpose, const QString&)> path_prompt_;
  Autosave* autosave_ = nullptr;
  BaselineController* baseline_ = nullptr;
  CompareDock* compare_ = nullptr;
  QToolButton* badge_ = nullptr;
  QAction* unpin_action_ = nullptr;
};

}  // namespace napkin

// The main window: one panel per phase over one shared scenario, the File /
// Edit / View / Help menus, session restore and the status bar. It knows the
// panels only as Panels: adding one is one line in the constructor.
#pragma once

#include <QMainWindow>
#include <QMessageBox>
#include <QPageSize>
#include <functional>
#include <optional>
#include <vector>

#include "Panel.h"
#include "ScenarioModel.h"

class QLabel;
class QMenu;
class QTabWidget;
class QTimer;

namespace napkin {

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  enum class Session { restore, fresh };
  explicit MainWindow(Session session = Session::restore, QWidget* parent = nullptr);

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
  bool importConfig(const QString& path);
  void newScenario();
  void resetToDefaults();
  // Selects a panel by key (Panel::panelKey(): budget, isoflops, moe, roofline).
  bool showPanel(const QString& key);
  // The panels' keys, comma-separated (for messages).
  QString panelKeys() const;
  void setSideNavigation(bool side);
  // Writes the PDF report of the current scenario (atomically); false and an
  // error shown on failure.
  bool exportReport(const QString& path);
  // Waits (bounded) until background work of the panels has finished.
  void settle();
  void printReport();
  QPageSize reportPageSize() const;
  void setReportPageSize(const QPageSize& size);

  // The text of the last error shown to the user (for tests).
  QString lastError() const { return last_error_; }
  // Replaces the unsaved-changes question (tests answer it without a dialog).
  void setSavePrompt(std::function<QMessageBox::StandardButton()> prompt) {
    prompt_ = std::move(prompt);
  }
  // Replaces the file dialogs: (purpose, suggested name) → path, "" to cancel.
  enum class PathPurpose { open, save_as, import_config, export_report };
  void setPathPrompt(std::function<QString(PathPurpose, const QString&)> prompt) {
    path_prompt_ = std::move(prompt);
  }

  // Crash safety: the scenario is written (debounced) to this file while the
  // app runs and removed on a clean exit; finding it at start means a crash.
  static QString autosavePath();
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
  bool maybeSave();
  bool save();
  bool saveAs();
  void showError(const QString& title, const QString& text);
  void showHelp();
  void saveSession();
  void restoreSession();
  void offerRecovery();

  ScenarioModel model_;
  Session session_;
  QTabWidget* tabs_ = nullptr;
  std::vector<Panel*> panels_;
  QMenu* recent_menu_ = nullptr;
  QLabel* file_label_ = nullptr;
  QAction* side_nav_action_ = nullptr;
  QString last_error_;
  std::optional<QPageSize> report_page_size_;
  std::function<QMessageBox::StandardButton()> prompt_;
  std::function<bool(const QString&)> recover_prompt_;
  std::function<QString(PathPurpose, const QString&)> path_prompt_;
  QTimer* autosave_timer_ = nullptr;
};

}  // namespace napkin

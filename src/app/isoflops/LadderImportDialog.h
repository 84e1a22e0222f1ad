// "Load ladder CSV…": a preview of the file's first rows, a column mapping
// (N, D or C, loss, an optional budget label) guessed from the header and
// editable, the units and scales, the loss cut, and every row that will be
// skipped and why (unreadable, non-numeric, non-positive, over the loss cut).
// Bad rows are skipped and listed, never fatal; OK is enabled when enough
// runs remain for a fit. The frame is the form ui/LadderImportDialog.ui.
//
// The preview reads only the first rows; the import with the mapping shown
// parses the whole text off the UI thread (a million-row file never freezes
// the dialog), its progress in the summary line. A new mapping stops the
// import under way and starts another; Cancel or closing stops it too.
#pragma once

#include <QDialog>
#include <QTimer>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "csv_ladder.h"

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QDoubleSpinBox;
class QLabel;
class QPlainTextEdit;
class QTableWidget;

namespace napkin {

class SciSpinBox;

class LadderImportDialog : public QDialog {
  Q_OBJECT
 public:
  // `text`: the file's contents; `source`: its path (its file name is kept).
  // Throws std::invalid_argument when the text is not a CSV table.
  LadderImportDialog(std::string text, const QString& source, const LossCut& cut,
                     QWidget* parent = nullptr);
  ~LadderImportDialog() override;

  // The mapping and the cut as the dialog shows them now.
  LadderColumns columns() const;
  LossCut lossCut() const;
  // The import with the current mapping (nullopt: the mapping cannot be read,
  // or it is still being parsed).
  const std::optional<CsvImport>& result() const { return import_; }
  // True while the import of the current mapping runs on its worker.
  bool importing() const { return job_ != nullptr; }
  // "240 runs kept; 5 over the loss cut" or why nothing can be loaded.
  QString summary() const;
  // One line per skipped row, as listed.
  QString skippedText() const;

  QComboBox* nColumn() const { return n_; }
  QDoubleSpinBox* nScale() const { return n_scale_; }
  QComboBox* tokensColumn() const { return tokens_; }
  QComboBox* tokensKind() const { return tokens_kind_; }
  QComboBox* lossColumn() const { return loss_; }
  QComboBox* lossUnit() const { return loss_unit_; }
  QComboBox* budgetColumn() const { return budget_; }
  QCheckBox* cutEnabled() const { return cut_on_; }
  QDoubleSpinBox* cutValue() const { return cut_value_; }
  QTableWidget* preview() const { return table_; }
  QDialogButtonBox* buttons() const { return buttons_; }

 private:
  // The form's column list with the file's header; `optional` adds "(none)".
  QComboBox* fillColumns(QComboBox* c, bool optional);
  // A multiplier box: scientific, 1 by default.
  QDoubleSpinBox* setUpScale(SciSpinBox* s);
  // Imports the text again with the mapping and cut shown, off the UI thread.
  void reimport();
  // Stops the import under way (its result, if it still comes, is dropped).
  void stopImport();
  // The summary, the skipped rows, the row count and OK from the import.
  void showImport();

  // What the worker shares with the dialog; it outlives the dialog when the
  // worker is still finishing its last 64 KiB.
  struct Job {
    std::atomic<bool> stop{false};
    std::atomic<std::int64_t> done{0}, total{0};
  };

  std::shared_ptr<const std::string> text_;
  std::shared_ptr<Job> job_;
  std::uint64_t generation_ = 0;
  QTimer progress_;
  QLabel* head_ = nullptr;
  QString file_name_;
  std::string source_;
  CsvPreview preview_;
  std::optional<CsvImport> import_;
  QString error_;
  QTableWidget* table_;
  QComboBox *n_, *tokens_, *tokens_kind_, *loss_, *loss_unit_, *budget_;
  QDoubleSpinBox *n_scale_, *tokens_scale_, *budget_scale_;
  QCheckBox* cut_on_;
  QDoubleSpinBox* cut_value_;
  QLabel* summary_;
  QPlainTextEdit* skipped_;
  QDialogButtonBox* buttons_;
};

}  // namespace napkin

// Reading a ladder CSV off the UI thread: a window-modal progress dialog with
// Cancel while the file is read (at most kMaxCsvBytes), the window painting
// and answering meanwhile.
#pragma once

#include <QString>
#include <string>

class QWidget;

namespace napkin {

struct CsvRead {
  std::string text;  // the file's bytes when ok()
  QString error;     // why it could not be read ("" when it was, or was cancelled)
  bool cancelled = false;
  bool ok() const { return error.isEmpty() && !cancelled; }
};

// Reads `path` on a worker thread and waits for it in a local event loop; the
// progress dialog (a child of `parent`, objectName "csvReadProgress") shows
// after 300 ms. Cancel stops the read at its next 64 KiB.
CsvRead readCsvInBackground(const QString& path, QWidget* parent);

}  // namespace napkin

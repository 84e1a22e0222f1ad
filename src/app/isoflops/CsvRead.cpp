#include "isoflops/CsvRead.h"

#include <QEventLoop>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QProgressDialog>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>
#include <atomic>
#include <memory>

#include "csv_ladder.h"

namespace napkin {

namespace {

// What the worker and the dialog share; it outlives both (the worker may
// still be finishing its last 64 KiB when the dialog is gone).
struct Shared {
  std::atomic<bool> cancel{false};
  std::atomic<std::int64_t> done{0}, total{0};
};

}  // namespace

CsvRead readCsvInBackground(const QString& path, QWidget* parent) {
  auto shared = std::make_shared<Shared>();
  const std::string file = path.toStdString();
  QFuture<CsvRead> future = QtConcurrent::run([shared, file] {
    CsvRead out;
    try {
      out.text = read_csv_file(file, kMaxCsvBytes, [shared](std::int64_t done, std::int64_t total) {
        shared->done = done;
        shared->total = total;
        return !shared->cancel.load();
      });
    } catch (const csv::Stopped&) {
      out.cancelled = true;
    } catch (const std::exception& e) {
      out.error = QString::fromStdString(e.what());
    }
    return out;
  });

  QProgressDialog dialog(QObject::tr("Reading %1…").arg(QFileInfo(path).fileName()),
                         QObject::tr("Cancel"), 0, 1000, parent);
  dialog.setObjectName(QStringLiteral("csvReadProgress"));
  dialog.setWindowModality(Qt::WindowModal);
  dialog.setMinimumDuration(300);
  dialog.setAutoReset(false);
  dialog.setValue(0);
  QObject::connect(&dialog, &QProgressDialog::canceled, &dialog,
                   [shared] { shared->cancel = true; });
  QTimer tick;
  tick.setInterval(50);
  QObject::connect(&tick, &QTimer::timeout, &dialog, [&dialog, shared] {
    // Only a change: setValue at the minimum restarts the dialog's show timer.
    // cancel() (Escape, or a caller) sets wasCanceled() without the signal.
    if (dialog.wasCanceled()) shared->cancel = true;
    const std::int64_t total = shared->total;
    if (total <= 0) {  // a pipe or FIFO: no size to measure against, a busy bar
      if (dialog.maximum() != 0) dialog.setRange(0, 0);
      return;
    }
    const int value = static_cast<int>(1000 * shared->done / total);
    if (value != dialog.value()) dialog.setValue(value);
  });
  // Shown after 300 ms whether or not the progress moved (a FIFO's does not).
  QTimer::singleShot(300, &dialog, [&dialog] { dialog.show(); });
  QEventLoop loop;
  QFutureWatcher<CsvRead> watcher;
  QObject::connect(&watcher, &QFutureWatcher<CsvRead>::finished, &loop, &QEventLoop::quit);
  watcher.setFuture(future);
  tick.start();
  if (!future.isFinished()) loop.exec();
  return future.result();
}

}  // namespace napkin

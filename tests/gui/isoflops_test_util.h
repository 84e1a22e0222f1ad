// Helpers of the IsoFLOPs panel tests (test_isoflops_panel*.cpp).
#pragma once

#include <gtest/gtest.h>

#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QPushButton>
#include <QTest>
#include <QThread>
#include <functional>
#include <string>

#include "ReadoutGrid.h"
#include "SliderSpin.h"
#include "budget.h"
#include "format.h"
#include "gui_test_util.h"
#include "hardware.h"
#include "isoflops/IsoflopsPanel.h"
#include "isoflops/LadderImportDialog.h"
#include "scaling.h"
#include "shell/MainWindow.h"

namespace napkin::test {

constexpr int kGenerous = 180000;  // ms: async results on a loaded 2-core machine

inline QString text(IsoflopsPanel* p, const char* key) {
  return p->readouts().text(QString::fromLatin1(key));
}
inline Tone tone(IsoflopsPanel* p, const char* key) {
  const IsoflopsReadouts& r = p->readouts();
  return r.grid()->readout(r.row(QString::fromLatin1(key))).tone;
}

// Processes events until `done` holds (no assertion on how long it takes).
inline bool waitFor(const std::function<bool()>& done, int timeout_ms = kGenerous) {
  QElapsedTimer t;
  t.start();
  while (!done()) {
    if (t.elapsed() > timeout_ms) return false;
    QTest::qWait(5);
  }
  return true;
}

inline bool waitIdle(IsoflopsPanel* p) {
  return waitFor([p] { return !p->isBusy(); });
}

inline void expectReadable(IsoflopsPanel* p, const std::string& where) {
  for (const char* key : {"target", "n_opt", "d_opt", "forecast", "ci", "decades", "a", "b", "sum",
                          "n_opt_law", "bias", "offset", "E", "A", "alpha", "B", "beta", "fit"}) {
    const QString t = text(p, key);
    EXPECT_FALSE(t.trimmed().isEmpty()) << where << ": " << key;
    EXPECT_FALSE(t.contains(QLatin1String("nan"), Qt::CaseInsensitive))
        << where << ": " << key << " = " << t.toStdString();
    EXPECT_FALSE(t.contains(QLatin1String("inf")))
        << where << ": " << key << " = " << t.toStdString();
    EXPECT_FALSE(t.contains(QStringLiteral("\u2014")))
        << where << ": " << key << " = " << t.toStdString();
  }
}

inline void selectIndex(QComboBox* c, int i) {
  c->setFocus();
  while (c->currentIndex() != i)
    QTest::keyClick(c, c->currentIndex() < i ? Qt::Key_Down : Qt::Key_Up);
}

inline double targetOf(const Scenario& s) {
  return budget_to_flops(chip_by_name(s.chip), s.n_chips, s.days, s.mfu);
}

inline const IsoflopsSettings& settings(MainWindow& w) { return w.model()->scenario().isoflops; }

inline QString csvPath() {
  return QStringLiteral(NAPKIN_TEST_DATA "/chinchilla_besiroglu2024/svg_extracted_data.csv");
}

// Loads a CSV through the dialog with its guessed mapping, as a user who
// reads the preview and presses "Load ladder" would.
inline bool loadWithDialog(IsoflopsPanel* p, const QString& path) {
  if (!p->loadLadderCsv(path)) return false;
  LadderImportDialog* d = p->importDialog();
  if (!d) return false;
  // The rows are parsed off the UI thread; OK waits for them.
  if (!waitFor([d] { return !d->importing(); })) return false;
  QPushButton* ok = d->buttons()->button(QDialogButtonBox::Ok);
  if (!ok->isEnabled()) return false;
  QTest::mouseClick(ok, Qt::LeftButton);
  return true;
}

}  // namespace napkin::test

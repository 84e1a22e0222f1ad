// Issue 26: the Budget planner's Compute C read-out names the peak C is
// counted against, so a user who switches training to FP8 sees why C moved
// (a predicted MFU) or why it did not (an assumed one).
#include <gtest/gtest.h>

#include <QComboBox>
#include <QCoreApplication>
#include <QTest>
#include <QUndoStack>

#include "budget/BudgetPanel.h"
#include "gui_test_util.h"
#include "shell/MainWindow.h"

using namespace napkin;

TEST(BudgetPanel, TheComputeReadoutNamesTheBf16OrFp8Peak) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  BudgetPanel* p = w.panel<BudgetPanel>();
  auto note = [p] { return p->readouts().grid()->readout(p->readouts().flops).note; };
  auto flops = [p] { return p->readouts().text(p->readouts().flops); };
  EXPECT_EQ(note(),
            QStringLiteral("chips × 990 TFLOP/s (the H100's bf16 dense peak) × MFU × days"));
  const QString bf16_flops = flops();

  auto* combo = p->findChild<QComboBox*>(QStringLiteral("trainPrecision"));
  ASSERT_NE(combo, nullptr);
  pick(combo, QStringLiteral("FP8 GEMMs"));
  QCoreApplication::processEvents();
  ASSERT_EQ(w.model()->scenario().training.precision, Precision::mixed_fp8);
  EXPECT_TRUE(note().contains(QStringLiteral("not the 1,979 TFLOP/s FP8 peak")))
      << note().toStdString();
  EXPECT_TRUE(note().contains(QStringLiteral("an assumed MFU is taken as given")))
      << note().toStdString();
  EXPECT_EQ(flops(), bf16_flops);  // an assumed MFU: C does not move

  w.model()->undoStack()->undo();
  QCoreApplication::processEvents();
  EXPECT_TRUE(note().contains(QStringLiteral("bf16 dense peak"))) << note().toStdString();
}

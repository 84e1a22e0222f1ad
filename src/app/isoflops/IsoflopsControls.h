// The IsoFLOPs panel's controls, declared on a ControlColumn and bound to the
// shared scenario's IsoFLOPs settings (s.isoflops): each change is one undo
// step and is saved with the scenario. Every control is a named member.
#pragma once

#include "ScenarioControls.h"

#include <QList>

class QLabel;
class QPushButton;
class QWidget;

namespace napkin {

struct Scenario;

struct IsoflopsControls {
  // Ladder source.
  QLabel* source = nullptr;
  QPushButton* load_csv = nullptr;
  QPushButton* use_synthetic = nullptr;
  QCheckBox* loss_cut = nullptr;
  SliderSpin* max_loss = nullptr;
  // Ground-truth law.
  QComboBox* law = nullptr;
  SliderSpin *E = nullptr, *A = nullptr, *alpha = nullptr, *B = nullptr, *beta = nullptr;
  // Synthetic ladder.
  SliderSpin* budgets = nullptr;
  SliderSpin* budget_min = nullptr;
  SliderSpin* budget_max = nullptr;
  SliderSpin* sizes = nullptr;
  SliderSpin* span = nullptr;
  SliderSpin* noise = nullptr;
  SliderSpin* seed = nullptr;
  QCheckBox* outlier = nullptr;
  // The lesson.
  QCheckBox* bias = nullptr;
  SliderSpin* bias_nats = nullptr;
  QComboBox* bias_mode = nullptr;
  QCheckBox* offset = nullptr;
  SliderSpin* offset_nats = nullptr;
  // Fit and forecast.
  QComboBox* estimator = nullptr;
  SliderSpin* delta = nullptr;
  SliderSpin* resamples = nullptr;
  QCheckBox* follow = nullptr;
  SliderSpin* target = nullptr;
  // Candidate recipe.
  QComboBox* candidate = nullptr;
  SliderSpin *cand_a = nullptr, *cand_b = nullptr, *cand_dalpha = nullptr, *cand_dbeta = nullptr;
  // The groups that only apply to the synthetic ladder.
  QList<QWidget*> synthetic_only;

  // Declares every control on `column`, bound to `model`'s scenario.
  static IsoflopsControls declare(ControlColumn* column, ScenarioModel* model);
  // Enables what applies to the scenario's settings (synthetic vs loaded
  // ladder, δ for the Huber estimators, C* when not following the budget).
  // Under the synthetic ladder, which no cut applies to, the loss cut reads
  // off and says so; the cut is kept for the next loaded ladder.
  void updateEnabled(const Scenario& s) const;
};

}  // namespace napkin

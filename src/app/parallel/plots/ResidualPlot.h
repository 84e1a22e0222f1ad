// Calibration residuals: each measured run's step time (x) against the step
// the model predicts for it (y), with the published constants and with the
// fitted ones, on log axes around the y = x line where a perfect model lies.
// Below the line is optimistic (predicted faster than measured).
#pragma once

#include <vector>

#include "PlotWidget.h"

namespace napkin {

class ResidualPlot : public PlotWidget {
 public:
  explicit ResidualPlot(QWidget* parent = nullptr);
  // Seconds per step, one entry per run in each vector (equal sizes).
  void drawRuns(const std::vector<double>& measured, const std::vector<double>& published,
                const std::vector<double>& calibrated);
  // The points drawn (tests): published and calibrated graphs.
  int pointCount() const;

 private:
  QCPGraph* published_ = nullptr;
  QCPGraph* calibrated_ = nullptr;
  QCPGraph* diagonal_ = nullptr;
};

}  // namespace napkin

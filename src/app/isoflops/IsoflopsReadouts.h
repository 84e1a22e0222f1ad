// The IsoFLOPs panel's read-outs, in three sections: the forecast at C*, the
// IsoFLOPs exponents with the Kaplan → Chinchilla lesson, and the fitted law.
// Every row is a named member; each knows which way is better, for a
// baseline's change. A value computed from a fit that is being redone is
// shown in the warning tone with the note "updating…".
#pragma once

#include <vector>

#include "ReadoutGrid.h"

namespace napkin {

struct IsoflopsShown;

class IsoflopsReadouts {
 public:
  explicit IsoflopsReadouts(ReadoutGrid* grid);

  void show(const IsoflopsShown& s);
  // The change of every row from a baseline (nullptr: none).
  void setBaseline(const IsoflopsShown* baseline);
  std::vector<ReportTable> tables() const { return grid_->reportTables(); }
  ReadoutGrid* grid() const { return grid_; }
  // The row whose value label is "readout_<key>" (tests); an invalid row when none.
  ReadoutGrid::Row row(const QString& key) const;
  QString text(const QString& key) const;

  ReadoutGrid::Section forecast_section, exponent_section, law_section;
  ReadoutGrid::Row target, n_opt, d_opt, forecast, ci, decades;
  ReadoutGrid::Row a, b, sum, n_opt_law, bias, offset;
  ReadoutGrid::Row E, A, alpha, B, beta, fit;

 private:
  void showForecast(const IsoflopsShown& s);
  void showExponents(const IsoflopsShown& s);
  void showLesson(const IsoflopsShown& s);
  void showLaw(const IsoflopsShown& s);
  void put(ReadoutGrid::Row row, const QString& value, const QString& unit,
           std::optional<double> number, bool stale = false, const QString& note = {});
  ReadoutGrid* grid_;
};

}  // namespace napkin

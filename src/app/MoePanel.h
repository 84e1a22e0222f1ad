#pragma once

#include <QWidget>
#include <vector>

namespace napkin {

class PlotWidget;
class ScenarioModel;

class MoePanel : public QWidget {
  Q_OBJECT
 public:
  explicit MoePanel(ScenarioModel* model, QWidget* parent = nullptr);
  std::vector<PlotWidget*> plots() const { return {}; }
  QStringList readoutTexts() const { return {}; }
  static QString helpText();
  // False while the panel is a placeholder.
  static bool isBuilt() { return false; }
};

}  // namespace napkin

#include "LegacyReadouts.h"

#include <QFormLayout>
#include <QGridLayout>
#include <QLabel>
#include <QLayout>
#include <QWidget>

namespace napkin {

namespace {

// The label a read-out sits beside in its layout (grid: the cell to its left;
// form: its label; box: the widget before it).
QString nameBeside(QLayout* layout, QWidget* value) {
  if (!layout) return {};
  const int index = layout->indexOf(value);
  if (index >= 0) {
    QWidget* name = nullptr;
    if (auto* grid = qobject_cast<QGridLayout*>(layout)) {
      int row = 0, col = 0, rs = 0, cs = 0;
      grid->getItemPosition(index, &row, &col, &rs, &cs);
      if (col > 0)
        if (QLayoutItem* it = grid->itemAtPosition(row, col - 1)) name = it->widget();
    } else if (auto* form = qobject_cast<QFormLayout*>(layout)) {
      name = form->labelForField(value);
    } else if (index > 0) {
      name = layout->itemAt(index - 1)->widget();
    }
    if (auto* label = qobject_cast<QLabel*>(name)) {
      QString t = label->text().trimmed();
      if (t.endsWith(QLatin1Char(':'))) t.chop(1);
      return t;
    }
    return {};
  }
  for (int i = 0; i < layout->count(); ++i)
    if (QLayout* child = layout->itemAt(i)->layout()) {
      const QString n = nameBeside(child, value);
      if (!n.isEmpty()) return n;
    }
  return {};
}

}  // namespace

std::vector<ReportRow> legacyReadoutRows(const QWidget* panel) {
  std::vector<ReportRow> out;
  for (QLabel* v : panel->findChildren<QLabel*>()) {
    if (!v->objectName().startsWith(QLatin1String("readout_"))) continue;
    // A status line says what the UI did ("press Play…"): not a number for the memo.
    if (v->objectName() == QLatin1String("readout_status")) continue;
    QString name = v->parentWidget() ? nameBeside(v->parentWidget()->layout(), v) : QString();
    if (name.isEmpty()) name = v->accessibleName();
    if (name.isEmpty()) name = v->objectName().mid(8).replace(QLatin1Char('_'), QLatin1Char(' '));
    out.push_back({name, v->text(), QString(), QString(), Tone::normal});
  }
  return out;
}

}  // namespace napkin

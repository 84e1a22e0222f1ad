#include "IsoflopsPanel.h"

#include <QLabel>
#include <QVBoxLayout>

namespace napkin {

IsoflopsPanel::IsoflopsPanel(ScenarioModel*, QWidget* parent) : QWidget(parent) {
  auto* l = new QLabel(tr("<h2>IsoFLOPs &amp; scaling laws</h2><p>Ladders, parabola vertices, power "
                          "laws, robust parametric fits and bootstrap forecasts (seed Phase 01).</p>"
                          "<p><i>This panel is not built yet; its arithmetic is in napkin-cli "
                          "(fit, isoflops).</i></p>"),
                       this);
  l->setAlignment(Qt::AlignCenter);
  l->setWordWrap(true);
  (new QVBoxLayout(this))->addWidget(l);
}

QString IsoflopsPanel::helpText() { return tr("<h3>IsoFLOPs &amp; scaling laws</h3><p>Not built yet.</p>"); }

}  // namespace napkin

#include "RooflinePanel.h"

#include <QLabel>
#include <QVBoxLayout>

namespace napkin {

RooflinePanel::RooflinePanel(ScenarioModel*, QWidget* parent) : QWidget(parent) {
  auto* l = new QLabel(tr("<h2>Roofline</h2><p>Intensity vs ridge, the MFU budget, "
                          "the latency napkin and chips for a latency budget (seed Phase 03).</p>"
                          "<p><i>This panel is not built yet; its arithmetic is in napkin-cli "
                          "(roofline, latency).</i></p>"),
                       this);
  l->setAlignment(Qt::AlignCenter);
  l->setWordWrap(true);
  (new QVBoxLayout(this))->addWidget(l);
}

QString RooflinePanel::helpText() { return tr("<h3>Roofline</h3><p>Not built yet.</p>"); }

}  // namespace napkin

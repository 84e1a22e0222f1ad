#include "MoePanel.h"

#include <QLabel>
#include <QVBoxLayout>

namespace napkin {

MoePanel::MoePanel(ScenarioModel*, QWidget* parent) : QWidget(parent) {
  auto* l = new QLabel(tr("<h2>MoE router</h2><p>Top-k routing, load-balance and z-losses, "
                          "capacity drops, router collapse and its cure (seed Phase 02).</p>"
                          "<p><i>This panel is not built yet; its arithmetic is in napkin-cli "
                          "(moe).</i></p>"),
                       this);
  l->setAlignment(Qt::AlignCenter);
  l->setWordWrap(true);
  (new QVBoxLayout(this))->addWidget(l);
}

QString MoePanel::helpText() { return tr("<h3>MoE router</h3><p>Not built yet.</p>"); }

}  // namespace napkin

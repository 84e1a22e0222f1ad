#include "moe/MoeTransport.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <QToolButton>
#include <QVBoxLayout>

#include "Text.h"
#include "format.h"
#include "moe/MoeRun.h"

namespace napkin {

MoeTransport::MoeTransport(MoeRun* run, QWidget* parent) : QWidget(parent), run_(run) {
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(0, 0, 0, 0);
  v->setSpacing(2);
  auto* row1 = new QHBoxLayout;
  auto* row2 = new QHBoxLayout;
  row1->setSpacing(4);
  row2->setSpacing(4);
  v->addLayout(row1);
  v->addLayout(row2);
  auto button = [this, row1](const QString& key, const QString& text, const QString& tip) {
    auto* b = new QToolButton(this);
    b->setObjectName(key);
    b->setText(text);
    b->setToolTip(tip);
    b->setToolButtonStyle(Qt::ToolButtonTextOnly);
    b->setMinimumWidth(52);
    row1->addWidget(b);
    return b;
  };
  play = button(QStringLiteral("play"), tr("▶ Play"),
                tr("Run the simulation, one frame per 16 ms (60 fps)"));
  pause = button(QStringLiteral("pause"), tr("❚❚ Pause"), tr("Stop the animation"));
  step = button(QStringLiteral("step"), tr("Step"), tr("Advance exactly one router step"));
  reset = button(QStringLiteral("reset"), tr("Reset"),
                 tr("Back to step 0: a fresh router and fresh experts with the current knobs"));
  cancel = button(QStringLiteral("cancel"), tr("Cancel"),
                  tr("Stop computing the run of record; the steps so far become the run"));
  auto* speed_label = new QLabel(tr("Speed"), this);
  row1->addWidget(speed_label);
  speed = new QComboBox(this);
  speed->setObjectName(QStringLiteral("speed"));
  for (int s : {1, 2, 5, 10, 20}) speed->addItem(tr("%1 step/frame").arg(s), s);
  speed->setCurrentIndex(speed->findData(run->speed()));
  speed->setToolTip(tr("Router steps per animation frame (60 frames per second). A frame never "
                       "spends more than %1 ms stepping, so at large E the effective speed may "
                       "be lower.")
                        .arg(MoeRun::kTickBudgetMs));
  speed_label->setBuddy(speed);
  row1->addWidget(speed);
  row1->addStretch(1);
  exportCsv = button(QStringLiteral("export"), tr("Export CSV…"),
                     tr("Save the run's traces (one row per step) as CSV"));

  auto* history = new QLabel(tr("History"), this);
  row2->addWidget(history);
  scrub = new QSlider(Qt::Horizontal, this);
  scrub->setObjectName(QStringLiteral("scrub"));
  scrub->setToolTip(tr("Scrub back through the recorded steps (up to %1). The simulation keeps "
                       "its latest state; \"Live\" returns to it.")
                        .arg(MoeRun::kMaxRecordedSteps));
  history->setBuddy(scrub);
  row2->addWidget(scrub, 1);
  live = new QToolButton(this);
  live->setObjectName(QStringLiteral("live"));
  live->setText(tr("Live"));
  live->setToolTip(tr("Show the latest step again"));
  row2->addWidget(live);
  stepLabel = new QLabel(this);
  stepLabel->setObjectName(QStringLiteral("readout_step"));
  QFont f = stepLabel->font();
  f.setBold(true);
  stepLabel->setFont(f);
  stepLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
  stepLabel->setFixedWidth(
      QFontMetrics(f).horizontalAdvance(QStringLiteral("step 5,000 of 5,000")) + 6);
  stepLabel->setToolTip(tr("The step the plots show, of the steps run so far"));
  row2->addWidget(stepLabel);

  statusLabel = new QLabel(this);
  statusLabel->setObjectName(QStringLiteral("moe_status"));
  // Two lines, wrapped: a long sentence never widens the panel nor moves the plots.
  statusLabel->setWordWrap(true);
  statusLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
  statusLabel->setFixedHeight(2 * statusLabel->fontMetrics().lineSpacing() + 4);
  statusLabel->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  v->addWidget(statusLabel);

  connect(play, &QToolButton::clicked, run, &MoeRun::play);
  connect(pause, &QToolButton::clicked, run, &MoeRun::pause);
  connect(step, &QToolButton::clicked, run, &MoeRun::stepOnce);
  connect(reset, &QToolButton::clicked, run, &MoeRun::reset);
  connect(live, &QToolButton::clicked, run, &MoeRun::goLive);
  connect(cancel, &QToolButton::clicked, run, &MoeRun::cancelRecording);
  connect(speed, &QComboBox::activated, this,
          [this](int i) { run_->setSpeed(speed->itemData(i).toInt()); });
  connect(scrub, &QSlider::valueChanged, this,
          [this](int step_value) { run_->scrubTo(step_value); });
  connect(exportCsv, &QToolButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export traces"), QStringLiteral("moe_collapse.csv"), tr("CSV (*.csv)"));
    if (path.isEmpty()) return;
    QString err;
    if (!run_->exportCsv(path, &err))
      setStatus(tr("Export failed: %1").arg(err));
    else
      setStatus(tr("Exported %1 steps to %2").arg(run_->currentStep()).arg(path));
  });
  connect(run, &MoeRun::status, this, &MoeTransport::setStatus);
  sync();
}

void MoeTransport::sync() {
  // While the run of record is computed, only Cancel acts on the run.
  const bool recording = run_->isRecording();
  cancel->setVisible(recording);
  for (QWidget* w :
       std::initializer_list<QWidget*>{play, pause, step, reset, live, exportCsv, scrub})
    w->setEnabled(!recording);
  const QSignalBlocker block(scrub);
  scrub->setRange(0, static_cast<int>(run_->currentStep()));
  scrub->setValue(static_cast<int>(run_->shownStep()));
  const QString text =
      tr("step %1 of %2").arg(groupedCount(run_->shownStep()), groupedCount(run_->currentStep()));
  if (stepLabel->text() != text) stepLabel->setText(text);
}

void MoeTransport::setStatus(const QString& text) { statusLabel->setText(text); }

}  // namespace napkin

// The animation's transport bar: Play, Pause, Step, Reset, the speed, the
// history scrubber, Live, the shown step, Export CSV… and a status line that
// says whether a change restarted or continued the run.
#pragma once

#include <QWidget>

class QComboBox;
class QLabel;
class QSlider;
class QToolButton;

namespace napkin {

class MoeRun;

class MoeTransport : public QWidget {
  Q_OBJECT
 public:
  MoeTransport(MoeRun* run, QWidget* parent = nullptr);

  // Follows the run (step label, scrubber range and position).
  void sync();
  void setStatus(const QString& text);

  QToolButton *play = nullptr, *pause = nullptr, *step = nullptr, *reset = nullptr, *live = nullptr,
              *exportCsv = nullptr;
  // Shown while a run of record is computed off the UI thread.
  QToolButton* cancel = nullptr;
  QComboBox* speed = nullptr;
  QSlider* scrub = nullptr;
  QLabel* stepLabel = nullptr;
  QLabel* statusLabel = nullptr;

 private:
  MoeRun* run_;
};

}  // namespace napkin

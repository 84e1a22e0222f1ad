// The MoE panel's animation: the collapse simulation it steps, the step the
// plots show (live, or scrubbed back), play / pause / step / reset and the
// speed. This is view state, not the scenario: the run's knobs come from the
// scenario's MoeSettings (setParams), the playing does not go into it.
#pragma once

#include <QObject>
#include <QString>
#include <cstdint>
#include <memory>

#include "moe.h"

class QTimer;

namespace napkin {

class MoeRun : public QObject {
  Q_OBJECT
 public:
  static constexpr std::int64_t kMaxRecordedSteps = 5000;  // scrub history (≈ 30 MB at E = 256)
  static constexpr int kFrameMs = 16;                      // 60 fps
  static constexpr double kTickBudgetMs = 8;               // a tick steps at most this long

  // Starts a fresh run of `params` and steps it `steps` times (the run of record).
  MoeRun(const CollapseParams& params, std::int64_t steps, QObject* parent = nullptr);
  ~MoeRun() override;

  // The knobs changed: E, tokens per batch or the seed restart the run at
  // step 0; any other knob continues it. Returns true when it restarted.
  bool setParams(const CollapseParams& params);
  // A new document: a fresh run of `params`, stepped `steps` times (its run of record).
  void replay(const CollapseParams& params, std::int64_t steps);

  const CollapseSimulation& simulation() const { return *sim_; }
  const CollapseParams& params() const { return sim_->params(); }
  std::int64_t currentStep() const { return sim_->steps_done(); }
  // The step the plots show (== currentStep() when live); 0 = no step yet.
  std::int64_t shownStep() const { return shown_; }
  // The stats of the shown step, or nullptr at step 0.
  const StepStats* shownStats() const;
  bool isPlaying() const;
  // A new run (restart or reset) replaced the history: trace plots rebuild.
  std::int64_t runId() const { return run_id_; }
  int speed() const { return speed_; }
  bool atRecordingLimit() const { return sim_->steps_done() >= kMaxRecordedSteps; }

  // Runs n steps and reports once: what a timer tick does.
  void advance(int n);
  void play();
  void pause();
  void stepOnce();
  // Back to step 0 with the current knobs.
  void reset();
  // Shows a recorded step (clamped); the simulation keeps its latest state.
  void scrubTo(std::int64_t step);
  void goLive();
  void setSpeed(int steps_per_frame) { speed_ = steps_per_frame; }
  // The animation may run only while the panel is on screen.
  void setOnScreen(bool on);
  // Writes the recorded traces as CSV (a comment, a header, one row per step).
  bool exportCsv(const QString& path, QString* error = nullptr) const;

 signals:
  // The shown step or the history changed: redraw.
  void advanced();
  void playingChanged(bool playing);
  // A sentence for the transport's status line.
  void status(const QString& text);

 private:
  void onTick();

  std::unique_ptr<CollapseSimulation> sim_;
  QTimer* timer_;
  std::int64_t shown_ = 0;
  bool follow_live_ = true;
  bool resume_on_show_ = false;
  bool on_screen_ = false;
  int speed_ = 2;
  std::int64_t run_id_ = 0;
};

}  // namespace napkin

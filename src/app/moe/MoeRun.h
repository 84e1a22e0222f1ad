// The MoE panel's animation: the collapse simulation it steps, the step the
// plots show (live, or scrubbed back), play / pause / step / reset and the
// speed. This is view state, not the scenario: the run's knobs come from the
// scenario's MoeSettings (setParams), the playing does not go into it.
#pragma once

#include <QObject>
#include <QString>
#include <cstdint>
#include <memory>
#include <vector>

#include "moe.h"

class QTimer;

namespace napkin {

class MoeRun : public QObject {
  Q_OBJECT
 public:
  static constexpr std::int64_t kMaxRecordedSteps = 5000;  // scrub history (≈ 30 MB at E = 256)
  static constexpr int kFrameMs = 16;                      // 60 fps
  static constexpr double kTickBudgetMs = 8;               // a tick steps at most this long
  // A run of record up to this much work (collapse_run_work, moe.h; about
  // 0.1 s) is stepped at once, so the default document (3e6) and the bundled
  // ones open on a finished run; a larger one is computed off the UI thread
  // with progress and Cancel.
  static constexpr double kInlineRecordWork = 1e7;

  // Starts a fresh run of `params` and steps it `steps` times (the run of
  // record), off the UI thread when it is more than kInlineRecordWork, and
  // shows step `shown_step` of it (0: its last step, live).
  MoeRun(const CollapseParams& params, std::int64_t steps, std::int64_t shown_step = 0,
         QObject* parent = nullptr);
  ~MoeRun() override;

  // The knobs changed: E, tokens per batch or the seed restart the run at
  // step 0; any other knob continues it. Returns true when it restarted.
  bool setParams(const CollapseParams& params);
  // A new document: a fresh run of `params`, stepped `steps` times (its run
  // of record); off the UI thread when it is more than kInlineRecordWork.
  // Shows step `shown_step` (0: the last, live); a step past the steps
  // computed (a Cancel) shows the last one and says so.
  void replay(const CollapseParams& params, std::int64_t steps, std::int64_t shown_step = 0);

  // A run of record is being computed off the UI thread: the run shows step 0
  // and Play, Step, Reset and scrubbing wait; advanced() fires when it is in.
  bool isRecording() const { return recording_ != nullptr; }
  // Steps of the run of record computed so far, and how many it has.
  std::int64_t recordingDone() const;
  std::int64_t recordingTarget() const;
  // Stops computing the run of record: the steps computed so far become the
  // run (Play continues it). It arrives through the event loop, or at once
  // with waitForRecording().
  void cancelRecording();
  // Blocks until a run of record being computed is in (the report, tests).
  void waitForRecording();

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
  // " Showing step N, where it was saved; …" when a run opened on the saved
  // step `shown_step` (> 0) and shows it, else "".
  static QString savedStepNote(std::int64_t shown_step, std::int64_t shown);
  // Writes the recorded traces as CSV (a comment, a header, one row per step).
  bool exportCsv(const QString& path, QString* error = nullptr) const;

 signals:
  // The shown step or the history changed: redraw.
  void advanced();
  void playingChanged(bool playing);
  // A run of record started or stopped being computed off the UI thread.
  void recordingChanged(bool recording);
  // A sentence for the transport's status line.
  void status(const QString& text);

 private:
  struct Recording;
  void onTick();
  // Forgets a run of record being computed (the knobs or the document
  // changed); its thread stops at its next step.
  void abandonRecording();
  void finishRecording(const std::shared_ptr<Recording>& recording);
  void startRun(std::shared_ptr<CollapseSimulation> sim, std::int64_t shown_step = 0);

  std::shared_ptr<CollapseSimulation> sim_;
  std::shared_ptr<Recording> recording_;               // the one being computed
  std::vector<std::shared_ptr<Recording>> in_flight_;  // its thread and abandoned ones
  QTimer* progress_timer_ = nullptr;
  QTimer* timer_;
  std::int64_t shown_ = 0;
  bool follow_live_ = true;
  bool resume_on_show_ = false;
  bool on_screen_ = false;
  int speed_ = 2;
  std::int64_t run_id_ = 0;
};

}  // namespace napkin

// The IsoFLOPs panel's slow path, off the UI thread: the parametric fit
// (tens of ms) and then the bootstrap (hundreds of ms), started once the
// inputs have been still for a short debounce, with progress and cancel. Each
// request bumps a generation counter; a result computed for an older
// generation (inputs that have changed since, or a cancelled run) is
// discarded, never shown.
#pragma once

#include <QFuture>
#include <QObject>
#include <optional>
#include <string>
#include <vector>

#include "isoflops_view.h"
#include "scaling.h"

class QTimer;

namespace napkin {

// What the fit and the bootstrap are computed from.
struct FitJobInputs {
  std::vector<LadderPoint> points;
  Estimator estimator = Estimator::huber_log;
  double huber_delta = 1e-3;
  int resamples = 500;
  std::uint64_t seed = 0;
  double target_flops = 1e24;  // the bootstrap's own target (not an input of the result shown)
  bool operator==(const FitJobInputs& o) const;  // target_flops excluded
};

// The latest results for the current inputs: the model's IsoflopsSlow
// (isoflops_view.h), what make_isoflops_view() combines with the ladder.
using FitJobResult = IsoflopsSlow;

// One stage of a run: 1 = the fit, 2 = the bootstrap.
struct FitJobStage {
  int generation = 0;
  int stage = 0;
  std::optional<FitResult> fit;
  std::vector<LossLaw> laws;
  std::vector<BandPoint> band;
  int n_successful = 0, n_skipped = 0;
  std::string error;
};

class FitJob : public QObject {
  Q_OBJECT
 public:
  explicit FitJob(int debounce_ms, QObject* parent = nullptr);
  ~FitJob() override;

  // New inputs: when they differ from the current ones, the running job is
  // cancelled, the results marked pending and the debounce restarted (and
  // true is returned).
  bool request(FitJobInputs inputs);
  // Runs the fit and the bootstrap now, on this thread (the first view).
  void runNow();
  // Starts the job now (after a cancel or a failure).
  void recompute();
  void cancel();

  bool isBusy() const { return result_.stale(); }
  bool isRunning() const { return running_generation_ == generation_ && running_generation_ >= 0; }
  bool isDebouncing() const;
  const FitJobResult& result() const { return result_; }
  const FitJobInputs& inputs() const { return inputs_; }
  int progress() const { return progress_; }
  int discarded() const { return discarded_; }
  // Bumps whenever what the result shows changes (for plot memos).
  int serial() const { return result_.serial; }

 signals:
  void fitUpdated();
  void bootstrapUpdated();
  void progressChanged(int done, int total);
  // Anything about the state changed (pending, running, finished).
  void stateChanged();

 private:
  void start();
  void onStage(const FitJobStage& s);

  QTimer* debounce_;
  FitJobInputs inputs_;
  bool has_inputs_ = false;
  int generation_ = 0;
  int running_generation_ = -1;
  int progress_ = 0;
  int discarded_ = 0;
  FitJobResult result_;
  std::vector<QFuture<FitJobStage>> jobs_;
};

}  // namespace napkin

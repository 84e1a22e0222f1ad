#include "isoflops/IsoflopsJob.h"

#include <QFutureWatcher>
#include <QTimer>
#include <QtConcurrent/QtConcurrent>
#include <algorithm>

#include "isoflops_view.h"

namespace napkin {

namespace {

FitOptions fitOptions(const FitJobInputs& in) {
  FitOptions o;
  o.estimator = in.estimator;
  o.huber_delta = in.huber_delta;
  return o;
}

FitJobStage runFit(const FitJobInputs& in, int generation) {
  FitJobStage s;
  s.generation = generation;
  s.stage = 1;
  try {
    s.fit = fit_parametric(in.points, fitOptions(in));
  } catch (const std::exception& e) {
    s.error = e.what();
  }
  return s;
}

FitJobStage runBootstrap(const FitJobInputs& in, int generation, const ProgressFn& progress) {
  FitJobStage s;
  s.generation = generation;
  s.stage = 2;
  BootstrapOptions b;
  b.resamples = in.resamples;
  b.seed = in.seed;
  b.fit = fitOptions(in);
  try {
    const BootstrapResult r = bootstrap_forecast(in.points, in.target_flops, b, progress);
    s.fit = r.fit;
    s.laws = r.laws;
    s.n_successful = r.n_successful;
    s.n_skipped = r.n_skipped;
    s.band = forecast_band(r.laws, forecast_band_flops());
  } catch (const Cancelled&) {
    throw;
  } catch (const std::exception& e) {
    s.error = e.what();
  }
  return s;
}

}  // namespace

bool FitJobInputs::operator==(const FitJobInputs& o) const {
  if (estimator != o.estimator || huber_delta != o.huber_delta || resamples != o.resamples ||
      seed != o.seed || points.size() != o.points.size())
    return false;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const LadderPoint &a = points[i], &b = o.points[i];
    if (a.n_params != b.n_params || a.n_tokens != b.n_tokens || a.loss != b.loss) return false;
  }
  return true;
}

FitJob::FitJob(int debounce_ms, QObject* parent) : QObject(parent) {
  debounce_ = new QTimer(this);
  debounce_->setSingleShot(true);
  debounce_->setInterval(debounce_ms);
  connect(debounce_, &QTimer::timeout, this, &FitJob::start);
}

FitJob::~FitJob() {
  debounce_->stop();
  for (auto* w : findChildren<QFutureWatcherBase*>()) w->disconnect(this);
  for (QFuture<FitJobStage>& f : jobs_) f.cancel();
  for (QFuture<FitJobStage>& f : jobs_) f.waitForFinished();
}

bool FitJob::isDebouncing() const { return debounce_->isActive(); }

bool FitJob::request(FitJobInputs in) {
  if (has_inputs_ && in == inputs_) {
    inputs_.target_flops = in.target_flops;
    return false;
  }
  inputs_ = std::move(in);
  has_inputs_ = true;
  ++generation_;
  for (QFuture<FitJobStage>& f : jobs_) f.cancel();
  result_.fit_state = JobState::pending;
  result_.boot_state = JobState::pending;
  progress_ = 0;
  ++result_.serial;
  debounce_->start();  // restarted only by a change of the inputs
  emit stateChanged();
  return true;
}

void FitJob::runNow() {
  debounce_->stop();
  const FitJobStage fit = runFit(inputs_, generation_);
  onStage(fit);
  if (fit.fit) onStage(runBootstrap(inputs_, generation_, {}));
  progress_ = inputs_.resamples;
  emit stateChanged();
}

void FitJob::recompute() {
  ++generation_;
  result_.fit_state = JobState::pending;
  result_.boot_state = JobState::pending;
  ++result_.serial;
  start();
}

void FitJob::cancel() {
  if (!isBusy()) return;
  debounce_->stop();
  for (QFuture<FitJobStage>& f : jobs_) f.cancel();
  ++generation_;  // anything already queued for the cancelled run is discarded
  const bool fit_pending = result_.fit_state == JobState::pending;
  if (fit_pending) {
    result_.fit_state = JobState::cancelled;
    result_.fit.reset();
  }
  if (result_.boot_state == JobState::pending) {
    result_.boot_state = JobState::cancelled;
    result_.laws.clear();
    result_.band.clear();
  }
  progress_ = 0;
  ++result_.serial;
  emit stateChanged();
  if (fit_pending) emit fitUpdated();
  emit bootstrapUpdated();
}

void FitJob::start() {
  debounce_->stop();
  const FitJobInputs in = inputs_;
  const int gen = generation_;
  // Everything the run needs is captured by value: it never touches this object.
  QFuture<FitJobStage> future = QtConcurrent::run([in, gen](QPromise<FitJobStage>& promise) {
    promise.setProgressRange(0, in.resamples);
    if (promise.isCanceled()) return;
    FitJobStage fit = runFit(in, gen);
    const bool ok = fit.fit.has_value();
    promise.addResult(std::move(fit));
    if (!ok || promise.isCanceled()) return;
    try {
      promise.addResult(runBootstrap(in, gen, [&promise](int done, int) {
        if (promise.isCanceled()) return false;
        promise.setProgressValue(done);
        return true;
      }));
    } catch (const Cancelled&) {
      // Cancelled: nobody wants this result.
    }
  });
  auto* watcher = new QFutureWatcher<FitJobStage>(this);
  connect(watcher, &QFutureWatcher<FitJobStage>::resultReadyAt, this,
          [this, watcher](int i) { onStage(watcher->resultAt(i)); });
  connect(watcher, &QFutureWatcher<FitJobStage>::progressValueChanged, this, [this, gen](int v) {
    if (gen != generation_) return;
    progress_ = v;
    emit progressChanged(v, inputs_.resamples);
  });
  connect(watcher, &QFutureWatcher<FitJobStage>::finished, this, [this, watcher, gen] {
    if (gen == running_generation_) running_generation_ = -1;
    jobs_.erase(std::remove_if(jobs_.begin(), jobs_.end(),
                               [](const QFuture<FitJobStage>& f) { return f.isFinished(); }),
                jobs_.end());
    watcher->deleteLater();
    emit stateChanged();
  });
  watcher->setFuture(future);
  jobs_.erase(std::remove_if(jobs_.begin(), jobs_.end(),
                             [](const QFuture<FitJobStage>& f) { return f.isFinished(); }),
              jobs_.end());
  jobs_.push_back(future);
  running_generation_ = gen;
  progress_ = 0;
  emit stateChanged();
}

void FitJob::onStage(const FitJobStage& s) {
  if (s.generation != generation_) {
    ++discarded_;  // computed for inputs that have changed since
    return;
  }
  ++result_.serial;
  FitJobResult& r = result_;
  if (s.stage == 1) {
    r.fit = s.fit;
    r.fit_error = s.error;
    r.fit_state = s.fit ? JobState::current : JobState::failed;
    if (!s.fit) {
      r.boot_state = JobState::failed;
      r.boot_error = "no bootstrap without a fit";
      r.laws.clear();
      r.band.clear();
    }
  } else {
    if (s.fit) r.fit = s.fit;
    r.laws = s.laws;
    r.band = s.band;
    r.n_successful = s.n_successful;
    r.n_skipped = s.n_skipped;
    r.boot_error = s.error;
    r.boot_state = s.error.empty() ? JobState::current : JobState::failed;
    if (!s.error.empty()) {
      r.laws.clear();
      r.band.clear();
    } else {
      progress_ = inputs_.resamples;
    }
  }
  emit stateChanged();
  if (s.stage == 1) emit fitUpdated();
  if (s.stage == 2 || !s.fit) emit bootstrapUpdated();
}

}  // namespace napkin

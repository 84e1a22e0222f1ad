#include "moe/MoeRun.h"

#include <QElapsedTimer>
#include <QFuture>
#include <QFutureWatcher>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <atomic>
#include <sstream>

#include "Text.h"
#include "atomic_writer.h"
#include "format.h"

namespace napkin {

// A run of record computed on a worker thread: the thread owns `sim` until
// the future finishes; the UI thread reads only the atomics before that.
struct MoeRun::Recording {
  std::shared_ptr<CollapseSimulation> sim;
  std::int64_t target = 0;
  std::int64_t shown_step = 0;  // the step to show once it is in (0: the last)
  std::atomic<std::int64_t> done{0};
  std::atomic<bool> stop{false};
  bool cancelled = false;  // Cancel: keep the steps computed so far
  QFuture<void> future;
};

MoeRun::MoeRun(const CollapseParams& params, std::int64_t steps, std::int64_t shown_step,
               QObject* parent)
    : QObject(parent) {
  timer_ = new QTimer(this);
  timer_->setTimerType(Qt::PreciseTimer);
  timer_->setInterval(kFrameMs);
  connect(timer_, &QTimer::timeout, this, &MoeRun::onTick);
  progress_timer_ = new QTimer(this);
  progress_timer_->setInterval(200);
  connect(progress_timer_, &QTimer::timeout, this, [this] {
    if (!recording_) return;
    emit status(tr("Computing the scenario's run of record off the UI thread: step %1 of %2… "
                   "Cancel keeps the steps so far.")
                    .arg(groupedCount(recordingDone()), groupedCount(recordingTarget())));
  });
  replay(params, steps, shown_step);
}

MoeRun::~MoeRun() {
  timer_->stop();
  // A clean stop: every worker sees its flag at its next step and is waited for.
  for (const auto& r : in_flight_) r->stop = true;
  for (const auto& r : in_flight_) r->future.waitForFinished();
}

std::int64_t MoeRun::recordingDone() const { return recording_ ? recording_->done.load() : 0; }

std::int64_t MoeRun::recordingTarget() const { return recording_ ? recording_->target : 0; }

void MoeRun::abandonRecording() {
  if (!recording_) return;
  recording_->stop = true;
  recording_.reset();
  progress_timer_->stop();
  emit recordingChanged(false);
}

void MoeRun::cancelRecording() {
  if (!recording_) return;
  recording_->cancelled = true;
  recording_->stop = true;
  emit status(tr("Stopping the run of record at step %1…").arg(groupedCount(recordingDone())));
}

void MoeRun::waitForRecording() {
  if (!recording_) return;
  const std::shared_ptr<Recording> r = recording_;
  r->future.waitForFinished();
  finishRecording(r);
}

void MoeRun::finishRecording(const std::shared_ptr<Recording>& r) {
  std::erase(in_flight_, r);
  if (r != recording_) return;  // abandoned, or already taken by waitForRecording()
  recording_.reset();
  progress_timer_->stop();
  startRun(r->sim, r->shown_step);
  emit recordingChanged(false);
  if (r->cancelled && r->shown_step > sim_->steps_done())
    emit status(tr("Stopped the run of record at step %1 of %2: it shows its last step, not "
                   "step %3 it was saved on; Play continues from there.")
                    .arg(groupedCount(sim_->steps_done()), groupedCount(r->target),
                         groupedCount(r->shown_step)));
  else if (r->cancelled)
    emit status(tr("Stopped the run of record at step %1 of %2: Play continues from there.")
                    .arg(groupedCount(sim_->steps_done()), groupedCount(r->target)));
  else
    emit status(tr("Ran the scenario's %1 steps from step 0.").arg(groupedCount(r->target)) +
                savedStepNote(r->shown_step, shown_));
  emit advanced();
}

void MoeRun::startRun(std::shared_ptr<CollapseSimulation> sim, std::int64_t shown_step) {
  sim_ = std::move(sim);
  const std::int64_t last = sim_->steps_done();
  shown_ = shown_step > 0 ? std::min(shown_step, last) : last;
  follow_live_ = shown_ >= last;
  ++run_id_;
}

bool MoeRun::setParams(const CollapseParams& p) {
  abandonRecording();
  if (CollapseSimulation::needs_restart(sim_->params(), p)) {
    sim_ = std::make_shared<CollapseSimulation>(p);
    shown_ = 0;
    follow_live_ = true;
    ++run_id_;
    return true;
  }
  sim_->retune(p);
  return false;
}

void MoeRun::replay(const CollapseParams& p, std::int64_t steps, std::int64_t shown_step) {
  abandonRecording();
  steps = std::min(steps, kMaxRecordedSteps);
  auto sim = std::make_shared<CollapseSimulation>(p);
  if (collapse_run_work(p, steps) <= kInlineRecordWork) {
    sim->run(steps);
    startRun(std::move(sim), shown_step);
    return;
  }
  pause();
  startRun(std::make_shared<CollapseSimulation>(p));  // step 0 while the record computes
  auto r = std::make_shared<Recording>();
  r->sim = std::move(sim);
  r->target = steps;
  r->shown_step = shown_step;
  r->future = QtConcurrent::run([r] {
    while (r->sim->steps_done() < r->target && !r->stop.load()) {
      r->sim->step();
      r->done = r->sim->steps_done();
    }
  });
  recording_ = r;
  in_flight_.push_back(r);
  auto* watcher = new QFutureWatcher<void>(this);
  connect(watcher, &QFutureWatcher<void>::finished, this, [this, watcher, r] {
    watcher->deleteLater();
    finishRecording(r);
  });
  watcher->setFuture(r->future);
  progress_timer_->start();
  emit recordingChanged(true);
  emit status(tr("Computing the scenario's run of record (%1 steps) off the UI thread…")
                  .arg(groupedCount(steps)));
}

const StepStats* MoeRun::shownStats() const {
  const auto& h = sim_->history();
  if (shown_ <= 0 || h.empty()) return nullptr;
  return &h[static_cast<std::size_t>(
      std::min<std::int64_t>(shown_, static_cast<std::int64_t>(h.size())) - 1)];
}

bool MoeRun::isPlaying() const { return timer_->isActive() || resume_on_show_; }

void MoeRun::advance(int n) {
  for (int i = 0; i < n && !atRecordingLimit(); ++i) sim_->step();
  if (atRecordingLimit() && isPlaying()) {
    pause();
    emit status(
        tr("Paused: the recording holds %1 steps. Reset to run again.").arg(kMaxRecordedSteps));
  }
  if (follow_live_) shown_ = sim_->steps_done();
  emit advanced();
}

void MoeRun::onTick() {
  QElapsedTimer t;
  t.start();
  int n = 0;
  // Step at most kTickBudgetMs per frame so a large E never drops a frame.
  while (n < speed_ && !atRecordingLimit()) {
    sim_->step();
    ++n;
    if (static_cast<double>(t.nsecsElapsed()) / 1e6 > kTickBudgetMs) break;
  }
  advance(0);
}

void MoeRun::play() {
  if (isRecording()) return;
  if (atRecordingLimit()) {
    emit status(tr("The recording holds %1 steps: Reset to run again.").arg(kMaxRecordedSteps));
    return;
  }
  if (on_screen_)
    timer_->start();
  else
    resume_on_show_ = true;
  emit playingChanged(true);
}

void MoeRun::pause() {
  const bool was = isPlaying();
  timer_->stop();
  resume_on_show_ = false;
  if (was) emit playingChanged(false);
}

void MoeRun::stepOnce() {
  if (isRecording()) return;
  pause();
  advance(1);
}

void MoeRun::reset() {
  abandonRecording();
  const CollapseParams p = sim_->params();
  sim_ = std::make_shared<CollapseSimulation>(p);
  shown_ = 0;
  follow_live_ = true;
  ++run_id_;
  emit status(tr("Reset to step 0 with the current knobs (α = %1).").arg(p.aux_weight, 0, 'g', 3));
  emit advanced();
}

void MoeRun::scrubTo(std::int64_t step) {
  shown_ = std::clamp<std::int64_t>(step, 0, sim_->steps_done());
  follow_live_ = shown_ >= sim_->steps_done();
  emit advanced();
}

QString MoeRun::savedStepNote(std::int64_t shown_step, std::int64_t shown) {
  if (shown_step < 1 || shown != shown_step) return QString();
  return QLatin1Char(' ') + tr("Showing step %1, where it was saved; Live follows the last step.")
                                .arg(groupedCount(shown_step));
}

void MoeRun::goLive() {
  follow_live_ = true;
  shown_ = sim_->steps_done();
  emit advanced();
}

void MoeRun::setOnScreen(bool on) {
  on_screen_ = on;
  if (!on && timer_->isActive()) {
    timer_->stop();
    resume_on_show_ = true;
  } else if (on && resume_on_show_) {
    resume_on_show_ = false;
    timer_->start();
  }
}

bool MoeRun::exportCsv(const QString& path, QString* error) const {
  std::ostringstream out;
  out.precision(10);
  const CollapseParams& p = sim_->params();
  out << "# napkin MoE router collapse: E=" << p.n_experts << " k=" << p.top_k
      << " aux=" << p.aux_weight << " z=" << p.z_weight << " cf=" << p.capacity_factor
      << " tokens=" << p.tokens_per_batch << " lr=" << p.learning_rate << " seed=" << p.seed
      << "\n";
  out << "step,max_over_mean,recent_max_over_mean,dead_experts,l_balance,l_z,drop_rate,"
         "task_loss,capacity_per_expert,dropped_slots,padded_slots,fully_dropped_tokens\n";
  for (const StepStats& s : sim_->history())
    out << s.step << ',' << s.max_over_mean << ',' << s.recent_max_over_mean << ','
        << s.dead_experts << ',' << s.l_balance << ',' << s.l_z << ',' << s.drop_rate << ','
        << s.task_loss << ',' << s.capacity_per_expert << ',' << s.dropped_slots << ','
        << s.padded_slots << ',' << s.fully_dropped_tokens << '\n';
  return write_file_atomically(path, QByteArray::fromStdString(out.str()), error);
}

}  // namespace napkin

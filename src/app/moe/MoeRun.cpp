#include "moe/MoeRun.h"

#include <QElapsedTimer>
#include <QTimer>
#include <algorithm>
#include <sstream>

#include "atomic_writer.h"

namespace napkin {

MoeRun::MoeRun(const CollapseParams& params, std::int64_t steps, QObject* parent)
    : QObject(parent), sim_(std::make_unique<CollapseSimulation>(params)) {
  timer_ = new QTimer(this);
  timer_->setTimerType(Qt::PreciseTimer);
  timer_->setInterval(kFrameMs);
  connect(timer_, &QTimer::timeout, this, &MoeRun::onTick);
  sim_->run(std::min(steps, kMaxRecordedSteps));
  shown_ = sim_->steps_done();
}

MoeRun::~MoeRun() { timer_->stop(); }

bool MoeRun::setParams(const CollapseParams& p) {
  if (CollapseSimulation::needs_restart(sim_->params(), p)) {
    sim_ = std::make_unique<CollapseSimulation>(p);
    shown_ = 0;
    follow_live_ = true;
    ++run_id_;
    return true;
  }
  sim_->retune(p);
  return false;
}

void MoeRun::replay(const CollapseParams& p, std::int64_t steps) {
  sim_ = std::make_unique<CollapseSimulation>(p);
  sim_->run(std::min(steps, kMaxRecordedSteps));
  shown_ = sim_->steps_done();
  follow_live_ = true;
  ++run_id_;
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
  pause();
  advance(1);
}

void MoeRun::reset() {
  const CollapseParams p = sim_->params();
  sim_ = std::make_unique<CollapseSimulation>(p);
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

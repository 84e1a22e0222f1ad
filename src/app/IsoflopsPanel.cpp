#include "IsoflopsPanel.h"

#include <qcustomplot.h>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>
#include <algorithm>
#include <cmath>

#include "PanelRefresh.h"
#include "PlotWidget.h"
#include "ScenarioModel.h"
#include "SliderSpin.h"
#include "budget.h"
#include "csv_ladder.h"
#include "format.h"
#include "hardware.h"

namespace napkin {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }
QString fixed(double v, int decimals) { return QString::number(v, 'f', decimals); }
// Read-out numbers: "n/a" instead of nan, inf or a dash.
QString count(double v, int decimals = 2) {
  return std::isfinite(v) && v > 0 ? qs(format_count(v, decimals)) : QStringLiteral("n/a");
}
QString nats(double v, int decimals = 4) {
  return std::isfinite(v) ? QString::number(v, 'f', decimals) : QStringLiteral("n/a");
}
QString sci(double v, int decimals = 2) { return qs(format_sci(v, decimals)); }
// A signed percentage with a real minus sign: −45.2 %.
QString signedPercent(double fraction, int decimals = 1) {
  const QString t = fixed(std::abs(fraction) * 100.0, decimals) + QStringLiteral(" %");
  return (fraction < 0 ? QStringLiteral("\u2212") : QStringLiteral("+")) + t;
}

const QColor kBlue(31, 119, 180), kGreen(44, 160, 44), kOrange(230, 120, 20), kRed(200, 30, 30),
    kGray(120, 120, 120), kPurple(128, 60, 160), kE(150, 150, 150), kCapacity(76, 114, 176),
    kData(85, 168, 104), kStale(160, 160, 160);

QPen pen(const QColor& c, double w = 1.8, Qt::PenStyle st = Qt::SolidLine) {
  QPen p(c, w);
  p.setStyle(st);
  return p;
}

// A perceptual blue → purple → red → orange ramp (plasma, without its pale
// yellow end, which vanishes on white).
QColor ramp(double t) {
  static const QColor stops[] = {QColor(13, 8, 135), QColor(126, 3, 168), QColor(204, 71, 120),
                                 QColor(240, 130, 40)};
  t = std::clamp(t, 0.0, 1.0) * 3.0;
  const int i = std::min(2, static_cast<int>(t));
  const double f = t - i;
  const QColor& a = stops[i];
  const QColor& b = stops[i + 1];
  return QColor::fromRgbF(static_cast<float>(a.redF() + f * (b.redF() - a.redF())),
                          static_cast<float>(a.greenF() + f * (b.greenF() - a.greenF())),
                          static_cast<float>(a.blueF() + f * (b.blueF() - a.blueF())));
}

QCPItemStraightLine* vline(QCustomPlot* p, const QPen& pn) {
  auto* l = new QCPItemStraightLine(p);
  l->setPen(pn);
  return l;
}

void placeV(QCPItemStraightLine* l, double x) {
  l->point1->setCoords(x, 1);
  l->point2->setCoords(x, 2);
}

QCPItemText* note(QCustomPlot* p, Qt::Alignment align, double x, double y) {
  auto* t = new QCPItemText(p);
  t->setPositionAlignment(align);
  QFont f = p->font();
  f.setPointSizeF(7.5);
  t->setFont(f);
  t->setPadding(QMargins(3, 1, 3, 1));
  t->setBrush(QColor(255, 255, 255, 215));
  t->position->setType(QCPItemPosition::ptAxisRectRatio);
  t->position->setCoords(x, y);
  t->setTextAlignment(Qt::AlignLeft);
  return t;
}

QCPGraph* addGraph(QCustomPlot* p, const QString& name, const QPen& pn,
                   QCPScatterStyle scatter = QCPScatterStyle(), bool line = true) {
  QCPGraph* g = p->addGraph();
  g->setName(name);
  g->setPen(pn);
  g->setScatterStyle(scatter);
  if (!line) g->setLineStyle(QCPGraph::lsNone);
  return g;
}

// Plots only finite points: a law evaluated far outside its range never puts
// nan into a plot or its CSV.
void setData(QCPGraph* g, const std::vector<double>& x, const std::vector<double>& y) {
  QVector<double> xs, ys;
  for (std::size_t i = 0; i < std::min(x.size(), y.size()); ++i)
    if (std::isfinite(x[i]) && std::isfinite(y[i])) {
      xs.push_back(x[i]);
      ys.push_back(y[i]);
    }
  g->setData(xs, ys);
}

std::vector<double> logGrid(double lo, double hi, int n) {
  std::vector<double> out;
  const double a = std::log10(lo), b = std::log10(hi);
  for (int i = 0; i < n; ++i) out.push_back(std::pow(10.0, a + (b - a) * i / (n - 1)));
  return out;
}

// The numbers a plot is drawn from, as one comparable key.
struct Key {
  std::vector<double> v;
  template <typename... T>
  Key& add(T... values) {
    (v.push_back(static_cast<double>(values)), ...);
    return *this;
  }
  Key& law(const LossLaw& l) { return add(l.E, l.A, l.alpha, l.B, l.beta); }
  Key& points(const std::vector<LadderPoint>& pts) {
    for (const LadderPoint& p : pts) add(p.n_params, p.n_tokens, p.loss, p.budget_flops, p.outlier);
    return *this;
  }
};

// Widget widths from font metrics, so a changing number never relayouts.
void fixWidth(QLabel* l, const QString& widest) {
  const QFontMetrics fm(l->font());
  l->setFixedSize(fm.horizontalAdvance(widest) + 6, fm.height() + 2);
}

enum class CsvColumn { n, d, c, loss, budget };

// Finds a column by the names ladders usually use (case-insensitive).
QString findColumn(const QStringList& header, CsvColumn which) {
  static const QHash<int, QStringList> names = {
      {static_cast<int>(CsvColumn::n),
       {QStringLiteral("N"), QStringLiteral("Model Size"), QStringLiteral("params"),
        QStringLiteral("parameters"), QStringLiteral("n_params"), QStringLiteral("model_size")}},
      {static_cast<int>(CsvColumn::d),
       {QStringLiteral("D"), QStringLiteral("tokens"), QStringLiteral("n_tokens"),
        QStringLiteral("Training Tokens"), QStringLiteral("training_tokens")}},
      {static_cast<int>(CsvColumn::c),
       {QStringLiteral("C"), QStringLiteral("Training FLOP"), QStringLiteral("Training FLOPs"),
        QStringLiteral("flops"), QStringLiteral("compute"), QStringLiteral("training_flops")}},
      {static_cast<int>(CsvColumn::loss),
       {QStringLiteral("loss"), QStringLiteral("final_loss"), QStringLiteral("eval_loss")}},
      {static_cast<int>(CsvColumn::budget),
       {QStringLiteral("budget"), QStringLiteral("budget_flops"),
        QStringLiteral("isoflop_budget")}},
  };
  for (const QString& want : names.value(static_cast<int>(which)))
    for (const QString& h : header)
      if (h.compare(want, Qt::CaseInsensitive) == 0) return h;
  return {};
}

QStringList csvHeader(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  QString line = QString::fromUtf8(f.readLine(1 << 16)).trimmed();
  if (line.startsWith(QChar(0xFEFF))) line.remove(0, 1);
  QStringList out;
  for (QString field : line.split(QLatin1Char(','))) {
    field = field.trimmed();
    if (field.size() >= 2 && field.startsWith(QLatin1Char('"')) && field.endsWith(QLatin1Char('"')))
      field = field.mid(1, field.size() - 2).replace(QStringLiteral("\"\""), QStringLiteral("\""));
    out << field;
  }
  return out;
}

const char* const kEstimatorKeys[] = {"huber-log", "ls-log", "ls-linear", "seed-cd"};

}  // namespace

// ================================================================= lifecycle

IsoflopsPanel::IsoflopsPanel(ScenarioModel* model, QWidget* parent)
    : Panel(parent), model_(model) {
  ui.setupUi(this);
  debounce_ = new QTimer(this);
  debounce_->setSingleShot(true);
  debounce_->setInterval(150);
  connect(debounce_, &QTimer::timeout, this, &IsoflopsPanel::startJob);
  buildControls();
  buildReadouts();
  buildPlots();
  connect(ui.cancelButton, &QPushButton::clicked, this, &IsoflopsPanel::cancelJob);
  connect(ui.rerunButton, &QPushButton::clicked, this, &IsoflopsPanel::recompute);
  connect(model_, &ScenarioModel::changed, this, [this] {
    if (!params_.follow_budget) return;
    if (deferWhileHidden(this, scenario_stale_)) return;
    refresh();
  });
  connect(model_, &ScenarioModel::gestureActive, this, [this](bool on) {
    for (PlotWidget* p : plots_) p->setDragMode(on);
  });
  refresh();
  // The first fit runs here, synchronously, so the panel opens (and a
  // screenshot renders) with a finished forecast; later ones run off-thread.
  debounce_->stop();
  const JobStage fit = runFit(requested_, generation_);
  onStage(fit);
  if (fit.fit) onStage(runBootstrap(requested_, view_.target_flops, generation_, {}));
}

IsoflopsPanel::~IsoflopsPanel() {
  debounce_->stop();
  for (auto* w : findChildren<QFutureWatcherBase*>()) w->disconnect(this);
  for (QFuture<JobStage>& f : jobs_) f.cancel();
  for (QFuture<JobStage>& f : jobs_) f.waitForFinished();
}

bool IsoflopsPanel::FitInputs::operator==(const FitInputs& o) const {
  if (estimator != o.estimator || huber_delta != o.huber_delta || resamples != o.resamples ||
      seed != o.seed || points.size() != o.points.size())
    return false;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const LadderPoint &a = points[i], &b = o.points[i];
    if (a.n_params != b.n_params || a.n_tokens != b.n_tokens || a.loss != b.loss) return false;
  }
  return true;
}

SyntheticLadderSpec IsoflopsPanel::specFor(const Params& p, bool bias, bool offset) {
  SyntheticLadderSpec s;
  s.law = p.law;
  s.budgets_flops = log_spaced_flops(p.budget_min, p.budget_max, p.n_budgets);
  s.sizes_per_budget = p.sizes_per_budget;
  s.size_span_decades = p.size_span_decades;
  s.noise = p.noise;
  s.seed = static_cast<std::uint64_t>(p.seed);
  s.lr_decay_bias_nats = bias ? p.bias_nats : 0.0;
  s.bias_mode = p.bias_mode;
  s.uniform_offset_nats = offset ? p.offset_nats : 0.0;
  s.outliers = p.outlier ? 1 : 0;
  return s;
}

LossLaw IsoflopsPanel::candidateLaw(const LossLaw& baseline) const {
  static constexpr CandidatePreset kBases[] = {
      CandidatePreset::fitted_law, CandidatePreset::seed_candidate,
      CandidatePreset::chinchilla_approach3, CandidatePreset::besiroglu2024};
  CandidateRecipe r;
  r.preset = kBases[std::clamp(params_.candidate_preset, 0, 3)];
  r.a_multiplier = params_.candidate_a_mult;
  r.b_multiplier = params_.candidate_b_mult;
  r.alpha_delta = params_.candidate_dalpha;
  r.beta_delta = params_.candidate_dbeta;
  return candidate_law(baseline, r);
}

std::vector<double> IsoflopsPanel::bandGrid() {
  std::vector<double> out;
  for (int i = 0; i <= 96; ++i) out.push_back(std::pow(10.0, 16.0 + i / 8.0));
  return out;
}

// ================================================================== controls

QVBoxLayout* IsoflopsPanel::addGroup(const QString& title) {
  auto* box = new QGroupBox(title, ui.controlsHost);
  auto* layout = new QVBoxLayout(box);
  layout->setSpacing(2);
  layout->setContentsMargins(6, 4, 6, 4);
  ui.controlsLayout->addWidget(box);
  return layout;
}

SliderSpin* IsoflopsPanel::addSlider(QVBoxLayout* group, const QString& key,
                                     const SliderSpin::Spec& spec, double initial,
                                     std::function<void(Params&, double)> set) {
  auto* w = new SliderSpin(spec, group->parentWidget());
  w->setObjectName(key);
  w->setValue(initial);
  group->addWidget(w);
  sliders_.insert(key, w);
  connect(w, &SliderSpin::valueEdited, this, [this, set](double v) {
    set(params_, v);
    refresh();
  });
  connect(w, &SliderSpin::gestureStarted, this, [this] {
    for (PlotWidget* p : plots_) p->setDragMode(true);
  });
  connect(w, &SliderSpin::gestureFinished, this, [this] {
    for (PlotWidget* p : plots_) p->setDragMode(false);
  });
  return w;
}

QComboBox* IsoflopsPanel::addCombo(QVBoxLayout* group, const QString& key, const QString& label,
                                   const QString& tooltip) {
  QComboBox* c = addLabelledCombo(group, key, label, tooltip, 88);
  c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  c->setMinimumContentsLength(12);
  combos_.insert(key, c);
  return c;
}

QCheckBox* IsoflopsPanel::addCheck(QVBoxLayout* group, const QString& key, const QString& label,
                                   const QString& tooltip, bool initial,
                                   std::function<void(Params&, bool)> set) {
  auto* c = new QCheckBox(label, group->parentWidget());
  c->setObjectName(key);
  c->setToolTip(tooltip);
  c->setChecked(initial);
  group->addWidget(c);
  checks_.insert(key, c);
  connect(c, &QCheckBox::toggled, this, [this, set](bool on) {
    set(params_, on);
    updateEnabled();
    refresh();
  });
  return c;
}

void IsoflopsPanel::buildControls() {
  using S = SliderSpin::Scale;
  const Params d;

  // --- where the ladder comes from
  QVBoxLayout* g = addGroup(tr("Ladder source"));
  source_label_ = new QLabel(g->parentWidget());
  source_label_->setObjectName(QStringLiteral("sourceLabel"));
  source_label_->setWordWrap(true);
  source_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  g->addWidget(source_label_);
  {
    auto* row = new QWidget(g->parentWidget());
    auto* h = new QHBoxLayout(row);
    h->setContentsMargins(0, 0, 0, 0);
    auto* load = new QPushButton(tr("Load ladder CSV…"), row);
    load->setObjectName(QStringLiteral("loadCsv"));
    load->setToolTip(
        tr("Fit a ladder of real runs instead of the synthetic one. Columns are found "
           "by name: N (or \"Model Size\", params); D (tokens) or C (\"Training FLOP\", "
           "FLOPs, then D = C/6N); loss (nats/token); optional budget (the IsoFLOPs "
           "label, FLOPs)."));
    auto* synth = new QPushButton(tr("Use synthetic ladder"), row);
    synth->setObjectName(QStringLiteral("useSynthetic"));
    synth->setToolTip(tr("Go back to the synthetic ladder drawn from the ground-truth law below."));
    h->addWidget(load);
    h->addWidget(synth);
    g->addWidget(row);
    buttons_.insert(QStringLiteral("loadCsv"), load);
    buttons_.insert(QStringLiteral("useSynthetic"), synth);
    connect(load, &QPushButton::clicked, this, [this] {
      const QString path = QFileDialog::getOpenFileName(this, tr("Load ladder CSV"), QString(),
                                                        tr("CSV files (*.csv);;All files (*)"));
      if (!path.isEmpty()) loadLadderCsv(path);
    });
    connect(synth, &QPushButton::clicked, this, &IsoflopsPanel::useSyntheticLadder);
  }
  {
    auto* row = new QWidget(g->parentWidget());
    auto* h = new QHBoxLayout(row);
    h->setContentsMargins(0, 0, 0, 0);
    const QString tip =
        tr("Keep only CSV rows with loss below this value (nats/token). Besiroglu "
           "et al. drop the 5 worst runs of the Chinchilla data, keeping the 240 "
           "below 3.4469.");
    auto* c = new QCheckBox(tr("Keep only loss <"), row);
    c->setObjectName(QStringLiteral("csvFilter"));
    c->setChecked(d.csv_filter);
    c->setToolTip(tip);
    max_loss_ = new QDoubleSpinBox(row);
    max_loss_->setObjectName(QStringLiteral("csvMaxLoss"));
    max_loss_->setDecimals(4);
    max_loss_->setRange(0.1, 100);
    max_loss_->setValue(d.csv_max_loss);
    max_loss_->setSuffix(tr(" nats"));
    max_loss_->setToolTip(tip);
    h->addWidget(c);
    h->addWidget(max_loss_, 1);
    g->addWidget(row);
    checks_.insert(QStringLiteral("csvFilter"), c);
    auto reload = [this] {
      params_.csv_filter = checks_[QStringLiteral("csvFilter")]->isChecked();
      params_.csv_max_loss = max_loss_->value();
      max_loss_->setEnabled(params_.csv_filter);
      if (csv_points_) loadLadderCsv(csv_path_);
    };
    connect(c, &QCheckBox::toggled, this, reload);
    connect(max_loss_, &QDoubleSpinBox::editingFinished, this, reload);
  }

  // --- the ground truth
  g = addGroup(tr("Ground-truth law (synthetic ladder)"));
  synthetic_only_ << g->parentWidget();
  QComboBox* preset =
      addCombo(g, QStringLiteral("law"), tr("Law"),
               tr("The law the synthetic ladder is drawn from: L = E + A/N^α + B/D^β "
                  "(nats/token). Chinchilla Approach 3 (Hoffmann et al. 2022) or the "
                  "Besiroglu et al. 2024 replication; editing a constant makes it custom."));
  preset->addItem(tr("Chinchilla Approach 3"));
  preset->addItem(tr("Besiroglu et al. 2024 replication"));
  preset->addItem(tr("Custom"));
  connect(preset, &QComboBox::activated, this, [this](int i) {
    params_.law_preset = i;
    if (i == 0) params_.law = chinchilla_approach3_law();
    if (i == 1) params_.law = besiroglu2024_law();
    syncLawSliders();
    refresh();
  });
  auto law_slider = [&](const QString& key, SliderSpin::Spec spec, double LossLaw::*member) {
    addSlider(g, key, spec, d.law.*member, [this, member](Params& p, double v) {
      p.law.*member = v;
      p.law_preset = 2;
      const QSignalBlocker b(combos_[QStringLiteral("law")]);
      combos_[QStringLiteral("law")]->setCurrentIndex(2);
    });
  };
  law_slider(QStringLiteral("E"),
             {tr("E"), 0.5, 3.0, S::linear, 3, false, false, 1, tr("nats"),
              tr("Irreducible loss E (nats/token): the entropy of text no model removes.")},
             &LossLaw::E);
  law_slider(QStringLiteral("A"),
             {tr("A"), 10, 10000, S::log, 1, false, false, 1, QString(),
              tr("Capacity coefficient A: the capacity term is A/N^α (nats/token).")},
             &LossLaw::A);
  law_slider(QStringLiteral("alpha"),
             {tr("α"), 0.05, 1.5, S::linear, 3, false, false, 1, QString(),
              tr("Capacity exponent α (parameters). N_opt ∝ C^(β/(α+β)).")},
             &LossLaw::alpha);
  law_slider(QStringLiteral("B"),
             {tr("B"), 10, 10000, S::log, 1, false, false, 1, QString(),
              tr("Data coefficient B: the data term is B/D^β (nats/token).")},
             &LossLaw::B);
  law_slider(QStringLiteral("beta"),
             {tr("β"), 0.05, 1.5, S::linear, 3, false, false, 1, QString(),
              tr("Data exponent β (tokens). D_opt ∝ C^(α/(α+β)).")},
             &LossLaw::beta);

  // --- the ladder's design
  g = addGroup(tr("Synthetic ladder"));
  synthetic_only_ << g->parentWidget();
  addSlider(g, QStringLiteral("budgets"),
            {tr("Budgets"), 2, 10, S::linear, 0, true, false, 1, QString(),
             tr("Number of IsoFLOPs budgets, spaced evenly in log C between the smallest and the "
                "largest.")},
            d.n_budgets, [](Params& p, double v) { p.n_budgets = static_cast<int>(v); });
  addSlider(g, QStringLiteral("budget_min"),
            {tr("Smallest C"), 1e15, 1e23, S::log, 2, false, true, 1, tr("FLOPs"),
             tr("The smallest budget of the ladder (FLOPs). Every run of a budget has 6ND = C.")},
            d.budget_min, [this](Params& p, double v) {
              p.budget_min = v;
              if (p.budget_max < v * 3.0) {
                p.budget_max = std::min(1e24, v * 10.0);
                if (p.budget_max < v * 3.0) p.budget_min = p.budget_max / 10.0;
                sliders_[QStringLiteral("budget_max")]->setValue(p.budget_max);
                sliders_[QStringLiteral("budget_min")]->setValue(p.budget_min);
              }
            });
  addSlider(
      g, QStringLiteral("budget_max"),
      {tr("Largest C"), 1e16, 1e24, S::log, 2, false, true, 1, tr("FLOPs"),
       tr("The largest budget of the ladder (FLOPs). The forecast extrapolates from here to C*.")},
      d.budget_max, [this](Params& p, double v) {
        p.budget_max = v;
        if (p.budget_min > v / 3.0) {
          p.budget_min = std::max(1e15, v / 10.0);
          if (p.budget_min > v / 3.0) p.budget_max = p.budget_min * 10.0;
          sliders_[QStringLiteral("budget_min")]->setValue(p.budget_min);
          sliders_[QStringLiteral("budget_max")]->setValue(p.budget_max);
        }
      });
  addSlider(g, QStringLiteral("sizes"),
            {tr("Sizes / budget"), 3, 15, S::linear, 0, true, false, 1, QString(),
             tr("Runs per budget (model sizes N), log-spaced around the true optimum; D = C/6N.")},
            d.sizes_per_budget,
            [](Params& p, double v) { p.sizes_per_budget = static_cast<int>(v); });
  addSlider(g, QStringLiteral("span"),
            {tr("Size span"), 0.3, 3.0, S::linear, 1, false, false, 1, tr("decades"),
             tr("How many decades of N each budget's sweep covers, centred on the true optimum.")},
            d.size_span_decades, [](Params& p, double v) { p.size_span_decades = v; });
  addSlider(g, QStringLiteral("noise"),
            {tr("Noise σ"), 0.0, 0.1, S::linear, 2, false, false, 100, QStringLiteral("%"),
             tr("Multiplicative log-normal noise on every run's loss: L·exp(σz), σ in % of L.")},
            d.noise, [](Params& p, double v) { p.noise = v; });
  addSlider(g, QStringLiteral("seed"),
            {tr("Seed"), 0, 9999, S::linear, 0, true, false, 1, QString(),
             tr("Seeds the ladder's noise and the bootstrap's resampling: same seed, same bytes.")},
            d.seed, [](Params& p, double v) { p.seed = static_cast<int>(v); });
  addCheck(
      g, QStringLiteral("outlier"), tr("Inject a diverged run (+1.5 nats outlier)"),
      tr("One run of the ladder gets +1.5 nats, as a diverged run would (seed ch. 8): the Huber "
         "estimator shrugs it off, least squares does not."),
      d.outlier, [](Params& p, bool on) { p.outlier = on; });

  // --- the lesson
  g = addGroup(tr("Kaplan → Chinchilla: the LR-decay bias"));
  synthetic_only_ << g->parentWidget();
  addCheck(
      g, QStringLiteral("bias"), tr("Inject the LR-decay (schedule-mismatch) bias"),
      tr("Read runs off a cosine schedule planned for a longer horizon, as Kaplan et al. did: a "
         "run at D of a schedule for D_sched is penalized bias·(1 − D/D_sched) nats. The bias is "
         "not uniform, so it tilts the exponents and moves N_opt."),
      d.bias_on, [](Params& p, bool on) { p.bias_on = on; });
  addSlider(g, QStringLiteral("bias_nats"),
            {tr("Bias strength"), 0.0, 0.2, S::linear, 3, false, false, 1, tr("nats"),
             tr("The schedule-mismatch penalty at D = 0 (nats/token); the seed's toy uses 0.15.")},
            d.bias_nats, [](Params& p, double v) { p.bias_nats = v; });
  QComboBox* mode =
      addCombo(g, QStringLiteral("bias_mode"), tr("Design"),
               tr("fixed_schedule: one schedule for the whole ladder, planned for its "
                  "longest run (Kaplan's design). per_budget: each budget's runs share "
                  "a schedule planned for that budget's longest run."));
  mode->addItem(QStringLiteral("fixed_schedule"));
  mode->addItem(QStringLiteral("per_budget"));
  connect(mode, &QComboBox::activated, this, [this](int i) {
    params_.bias_mode = i == 0 ? BiasMode::fixed_schedule : BiasMode::per_budget;
    refresh();
  });
  addCheck(
      g, QStringLiteral("offset"), tr("Inject a uniform offset (the control)"),
      tr("Add the same number of nats to every run: the fit absorbs it into E and no exponent, "
         "no vertex and no recommendation moves."),
      d.offset_on, [](Params& p, bool on) { p.offset_on = on; });
  addSlider(g, QStringLiteral("offset_nats"),
            {tr("Offset"), 0.0, 0.3, S::linear, 3, false, false, 1, tr("nats"),
             tr("The uniform offset added to every run (nats/token).")},
            d.offset_nats, [](Params& p, double v) { p.offset_nats = v; });

  // --- the fit and the forecast
  g = addGroup(tr("Fit and forecast"));
  QComboBox* est =
      addCombo(g, QStringLiteral("estimator"), tr("Estimator"),
               tr("How L = E + A/N^α + B/D^β is fitted: Huber on log residuals "
                  "(Hoffmann et al., Besiroglu et al.; L-BFGS from a 4,500-point grid), "
                  "least squares on log L or on L, or the seed's toy coordinate descent "
                  "(kept for comparison: it barely moves α and β)."));
  est->addItem(tr("huber-log — Huber on log L"), QString::fromLatin1(kEstimatorKeys[0]));
  est->addItem(tr("ls-log — least squares on log L"), QString::fromLatin1(kEstimatorKeys[1]));
  est->addItem(tr("ls-linear — least squares on L"), QString::fromLatin1(kEstimatorKeys[2]));
  est->addItem(tr("seed-cd — the seed's toy"), QString::fromLatin1(kEstimatorKeys[3]));
  connect(est, &QComboBox::activated, this, [this, est](int) {
    params_.estimator = parse_estimator(est->currentData().toString().toStdString());
    updateEnabled();
    refresh();
  });
  addSlider(
      g, QStringLiteral("delta"),
      {tr("Huber δ"), 1e-5, 0.1, S::log, 5, false, true, 1, QString(),
       tr("Huber threshold δ on log residuals: quadratic below δ, linear beyond (default 1e-3).")},
      d.huber_delta, [](Params& p, double v) { p.huber_delta = v; });
  addSlider(g, QStringLiteral("resamples"),
            {tr("Resamples"), 20, 2000, S::log, 0, true, false, 1, QString(),
             tr("Bootstrap resamples: refit the law on the ladder resampled with replacement, "
                "forecast the optimal loss at C*, take the 2.5–97.5 % percentiles.")},
            d.resamples, [](Params& p, double v) { p.resamples = static_cast<int>(v); });
  addCheck(g, QStringLiteral("follow"), tr("Target C* follows the Budget panel's C"),
           tr("C* = chips × peak FLOP/s × MFU × days × 86,400 s of the shared scenario (the "
              "Budget panel). Untick to set C* by hand."),
           d.follow_budget, [](Params& p, bool on) { p.follow_budget = on; });
  addSlider(g, QStringLiteral("target"),
            {tr("Target C*"), 1e18, 1e28, S::log, 2, false, true, 1, tr("FLOPs"),
             tr("The compute of the run you can afford once (FLOPs), when not following the Budget "
                "panel.")},
            d.manual_target, [](Params& p, double v) { p.manual_target = v; });

  // --- the decision
  g = addGroup(tr("Candidate recipe (plot 5)"));
  QComboBox* cand =
      addCombo(g, QStringLiteral("candidate"), tr("Candidate"),
               tr("The recipe compared with the fitted law (the baseline) at C*: the "
                  "baseline itself, the seed's ch. 12 candidate (E 1.69, A 500, α 0.38, "
                  "B 380, β 0.26) or a published law, then perturbed by the four "
                  "controls below. The default is the seed's trade-off at half "
                  "strength: better per parameter, worse per token."));
  cand->addItem(tr("The fitted law, perturbed"));
  cand->addItem(tr("Seed's candidate (α .38, β .26)"));
  cand->addItem(tr("Chinchilla Approach 3"));
  cand->addItem(tr("Besiroglu et al. 2024"));
  connect(cand, &QComboBox::activated, this, [this](int i) {
    params_.candidate_preset = i;
    refresh();
  });
  addSlider(g, QStringLiteral("cand_a"),
            {tr("Candidate A ×"), 0.25, 4, S::log, 2, false, false, 1, QString(),
             tr("Multiplies the candidate's capacity coefficient A (< 1: a better architecture).")},
            d.candidate_a_mult, [](Params& p, double v) { p.candidate_a_mult = v; });
  addSlider(g, QStringLiteral("cand_b"),
            {tr("Candidate B ×"), 0.25, 4, S::log, 2, false, false, 1, QString(),
             tr("Multiplies the candidate's data coefficient B (< 1: better data).")},
            d.candidate_b_mult, [](Params& p, double v) { p.candidate_b_mult = v; });
  addSlider(g, QStringLiteral("cand_dalpha"),
            {tr("Candidate Δα"), -0.1, 0.1, S::linear, 3, false, false, 1, QString(),
             tr("Added to the candidate's capacity exponent α (> 0: gains more from parameters).")},
            d.candidate_dalpha, [](Params& p, double v) { p.candidate_dalpha = v; });
  addSlider(g, QStringLiteral("cand_dbeta"),
            {tr("Candidate Δβ"), -0.1, 0.1, S::linear, 3, false, false, 1, QString(),
             tr("Added to the candidate's data exponent β (< 0: gains less from tokens).")},
            d.candidate_dbeta, [](Params& p, double v) { p.candidate_dbeta = v; });
  ui.controlsLayout->addStretch(1);
  updateEnabled();
}

void IsoflopsPanel::syncLawSliders() {
  sliders_[QStringLiteral("E")]->setValue(params_.law.E);
  sliders_[QStringLiteral("A")]->setValue(params_.law.A);
  sliders_[QStringLiteral("alpha")]->setValue(params_.law.alpha);
  sliders_[QStringLiteral("B")]->setValue(params_.law.B);
  sliders_[QStringLiteral("beta")]->setValue(params_.law.beta);
  const QSignalBlocker b(combos_[QStringLiteral("law")]);
  combos_[QStringLiteral("law")]->setCurrentIndex(params_.law_preset);
}

void IsoflopsPanel::updateEnabled() {
  const bool synthetic = !csv_points_.has_value();
  for (QWidget* w : synthetic_only_) w->setEnabled(synthetic);
  buttons_[QStringLiteral("useSynthetic")]->setEnabled(!synthetic);
  sliders_[QStringLiteral("delta")]->setEnabled(params_.estimator == Estimator::huber_log ||
                                                params_.estimator == Estimator::seed_cd);
  sliders_[QStringLiteral("target")]->setEnabled(!params_.follow_budget);
  sliders_[QStringLiteral("bias_nats")]->setEnabled(synthetic);
  max_loss_->setEnabled(params_.csv_filter);
}

// ================================================================= CSV ladder

bool IsoflopsPanel::loadLadderCsv(const QString& path) {
  try {
    const QStringList header = csvHeader(path);
    if (header.isEmpty() && !QFileInfo(path).isReadable())
      throw std::invalid_argument("cannot open " + path.toStdString());
    CsvLadderOptions o;
    if (QString n = findColumn(header, CsvColumn::n); !n.isEmpty()) o.n_column = n.toStdString();
    if (QString dc = findColumn(header, CsvColumn::d); !dc.isEmpty()) {
      o.d_column = dc.toStdString();
    } else if (QString c = findColumn(header, CsvColumn::c); !c.isEmpty()) {
      o.c_column = c.toStdString();
    }
    if (QString l = findColumn(header, CsvColumn::loss); !l.isEmpty())
      o.loss_column = l.toStdString();
    if (QString b = findColumn(header, CsvColumn::budget); !b.isEmpty())
      o.budget_column = b.toStdString();
    if (params_.csv_filter) o.max_loss = params_.csv_max_loss;
    const CsvLadder l = load_csv_ladder(path.toStdString(), o);
    if (l.points.size() < 5)
      throw std::invalid_argument(path.toStdString() + ": only " + std::to_string(l.points.size()) +
                                  " runs left after the loss filter; a fit needs at least 5");
    csv_points_ = l.points;
    csv_path_ = path;
    csv_summary_ =
        tr("CSV ladder %1: %2 of %3 rows (%4 dropped by loss < %5), N from \"%6\", D %7, loss from "
           "\"%8\"%9.")
            .arg(QFileInfo(path).fileName())
            .arg(l.points.size())
            .arg(l.rows)
            .arg(l.rows_filtered)
            .arg(o.max_loss ? fixed(*o.max_loss, 4) : tr("∞"))
            .arg(qs(o.n_column))
            .arg(l.tokens_from_flops ? tr("= C/6N from \"%1\"").arg(qs(l.tokens_column))
                                     : tr("from \"%1\"").arg(qs(l.tokens_column)))
            .arg(qs(o.loss_column))
            .arg(o.budget_column.empty() ? tr(", no budget labels")
                                         : tr(", budgets from \"%1\"").arg(qs(o.budget_column)));
    load_error_.clear();
  } catch (const std::exception& e) {
    load_error_ =
        tr("Could not load the ladder CSV — %1. The previous ladder is kept.").arg(qs(e.what()));
    source_label_->setStyleSheet(QStringLiteral("color: #c62828;"));
    source_label_->setText(load_error_);
    updateStatus();
    return false;
  }
  updateEnabled();
  refresh();
  return true;
}

void IsoflopsPanel::useSyntheticLadder() {
  csv_points_.reset();
  csv_path_.clear();
  load_error_.clear();
  updateEnabled();
  refresh();
}

// ================================================================ cheap path

double IsoflopsPanel::currentTarget() const {
  if (!params_.follow_budget) return params_.manual_target;
  try {
    const Scenario& s = model_->scenario();
    return budget_to_flops(chip_by_name(s.chip), s.n_chips, s.days, s.mfu);
  } catch (const std::exception&) {
    return params_.manual_target;
  }
}

IsoflopsPanel::LadderView IsoflopsPanel::makeView() const {
  LadderView v;
  std::vector<LadderPoint> points;
  if (csv_points_) {
    v.synthetic = false;
    points = *csv_points_;
  } else {
    const SyntheticLadderSpec spec = specFor(params_, params_.bias_on, params_.offset_on);
    v.truth = spec.law;
    points = synthetic_ladder(spec);
  }
  static_cast<IsoflopsView&>(v) = make_isoflops_view(std::move(points), currentTarget());
  if (v.synthetic)
    static_cast<ScheduleLesson&>(v) = schedule_lesson(
        specFor(params_, false, false), params_.bias_nats, params_.offset_nats, v.target_flops);
  return v;
}

void IsoflopsPanel::redraw() {
  // A law at the edge of its sliders can put an optimum outside the doubles;
  // say so in the status line instead of letting the exception escape.
  try {
    updateReadouts();
    updatePlots();
  } catch (const std::exception& e) {
    view_error_ = qs(e.what());
  }
  updateStatus();
}

void IsoflopsPanel::refresh() {
  try {
    view_ = makeView();
    view_error_.clear();
  } catch (const std::exception& e) {
    view_error_ = qs(e.what());
  }
  FitInputs in{view_.points, params_.estimator, params_.huber_delta, params_.resamples,
               static_cast<std::uint64_t>(params_.seed)};
  if (!has_requested_ || !(in == requested_)) {
    requested_ = std::move(in);
    has_requested_ = true;
    ++generation_;
    for (QFuture<JobStage>& f : jobs_) f.cancel();
    fit_state_ = JobState::pending;
    boot_state_ = JobState::pending;
    ++result_serial_;
    debounce_->start();  // restarted only by a change of the fit's inputs
  }
  if (csv_points_) {
    source_label_->setStyleSheet(QString());
    source_label_->setText(csv_summary_);
  } else if (load_error_.isEmpty()) {
    source_label_->setStyleSheet(QString());
    source_label_->setText(tr("Synthetic ladder: %1 budgets × %2 sizes = %3 runs drawn from the "
                              "ground-truth law below.")
                               .arg(params_.n_budgets)
                               .arg(params_.sizes_per_budget)
                               .arg(params_.n_budgets * params_.sizes_per_budget));
  }
  redraw();
  setJobUi();
}

// ============================================================ off-thread job

IsoflopsPanel::JobStage IsoflopsPanel::runFit(const FitInputs& in, int generation) {
  JobStage s;
  s.generation = generation;
  s.stage = 1;
  FitOptions o;
  o.estimator = in.estimator;
  o.huber_delta = in.huber_delta;
  try {
    s.fit = fit_parametric(in.points, o);
  } catch (const std::exception& e) {
    s.error = e.what();
  }
  return s;
}

IsoflopsPanel::JobStage IsoflopsPanel::runBootstrap(const FitInputs& in, double target,
                                                    int generation, const ProgressFn& progress) {
  JobStage s;
  s.generation = generation;
  s.stage = 2;
  BootstrapOptions b;
  b.resamples = in.resamples;
  b.seed = in.seed;
  b.fit.estimator = in.estimator;
  b.fit.huber_delta = in.huber_delta;
  try {
    const BootstrapResult r = bootstrap_forecast(in.points, target, b, progress);
    s.fit = r.fit;
    s.laws = r.laws;
    s.n_successful = r.n_successful;
    s.n_skipped = r.n_skipped;
    s.band = forecast_band(r.laws, bandGrid());
  } catch (const Cancelled&) {
    throw;
  } catch (const std::exception& e) {
    s.error = e.what();
  }
  return s;
}

void IsoflopsPanel::startJob() {
  debounce_->stop();
  const FitInputs in = requested_;
  const int gen = generation_;
  const double target = view_.target_flops;
  // Everything the job needs is captured by value: it never touches the panel.
  QFuture<JobStage> future = QtConcurrent::run([in, gen, target](QPromise<JobStage>& promise) {
    promise.setProgressRange(0, in.resamples);
    if (promise.isCanceled()) return;
    JobStage fit = runFit(in, gen);
    const bool ok = fit.fit.has_value();
    promise.addResult(std::move(fit));
    if (!ok || promise.isCanceled()) return;
    try {
      promise.addResult(runBootstrap(in, target, gen, [&promise](int done, int) {
        if (promise.isCanceled()) return false;
        promise.setProgressValue(done);
        return true;
      }));
    } catch (const Cancelled&) {
      // The panel asked to stop; it no longer wants this result.
    }
  });
  auto* watcher = new QFutureWatcher<JobStage>(this);
  connect(watcher, &QFutureWatcher<JobStage>::resultReadyAt, this,
          [this, watcher](int i) { onStage(watcher->resultAt(i)); });
  connect(watcher, &QFutureWatcher<JobStage>::progressValueChanged, this, [this, gen](int v) {
    if (gen == generation_) {
      ui.progressBar->setValue(v);
      setJobUi();
    }
  });
  connect(watcher, &QFutureWatcher<JobStage>::finished, this, [this, watcher, gen] {
    onJobFinished(gen, watcher->isCanceled());
    watcher->deleteLater();
  });
  watcher->setFuture(future);
  jobs_.erase(std::remove_if(jobs_.begin(), jobs_.end(),
                             [](const QFuture<JobStage>& f) { return f.isFinished(); }),
              jobs_.end());
  jobs_.push_back(future);
  running_generation_ = gen;
  ui.progressBar->setRange(0, in.resamples);
  ui.progressBar->setValue(0);
  setJobUi();
}

void IsoflopsPanel::onStage(const JobStage& s) {
  if (s.generation != generation_) {
    ++discarded_;  // computed for inputs that have changed since
    return;
  }
  ++result_serial_;
  if (s.stage == 1) {
    fit_ = s.fit;
    fit_error_ = s.error;
    fit_state_ = s.fit ? JobState::current : JobState::failed;
    if (!s.fit) {
      boot_state_ = JobState::failed;
      boot_error_ = "no bootstrap without a fit";
      boot_laws_.clear();
      band_.clear();
    }
  } else {
    if (s.fit) fit_ = s.fit;
    boot_laws_ = s.laws;
    band_ = s.band;
    boot_successful_ = s.n_successful;
    boot_skipped_ = s.n_skipped;
    boot_error_ = s.error;
    boot_state_ = s.error.empty() ? JobState::current : JobState::failed;
    if (!s.error.empty()) {
      boot_laws_.clear();
      band_.clear();
    }
  }
  redraw();
  setJobUi();
  if (s.stage == 1) emit fitUpdated();
  if (s.stage == 2 || !s.fit) emit bootstrapUpdated();
}

void IsoflopsPanel::onJobFinished(int generation, bool) {
  if (generation == running_generation_) running_generation_ = -1;
  jobs_.erase(std::remove_if(jobs_.begin(), jobs_.end(),
                             [](const QFuture<JobStage>& f) { return f.isFinished(); }),
              jobs_.end());
  setJobUi();
}

void IsoflopsPanel::cancelJob() {
  if (!isBusy()) return;
  debounce_->stop();
  for (QFuture<JobStage>& f : jobs_) f.cancel();
  ++generation_;  // anything already queued for the cancelled job is discarded
  const bool fit_pending = fit_state_ == JobState::pending;
  if (fit_pending) {
    fit_state_ = JobState::cancelled;
    fit_.reset();
  }
  if (boot_state_ == JobState::pending) {
    boot_state_ = JobState::cancelled;
    boot_laws_.clear();
    band_.clear();
  }
  ++result_serial_;
  redraw();
  setJobUi();
  if (fit_pending) emit fitUpdated();
  emit bootstrapUpdated();
}

void IsoflopsPanel::recompute() {
  ++generation_;
  fit_state_ = JobState::pending;
  boot_state_ = JobState::pending;
  ++result_serial_;
  startJob();
  redraw();
}

bool IsoflopsPanel::isBusy() const {
  return fit_state_ == JobState::pending || boot_state_ == JobState::pending;
}

void IsoflopsPanel::setJobUi() {
  const bool running = running_generation_ == generation_ && running_generation_ >= 0;
  QString text;
  if (debounce_->isActive()) {
    text = tr("Inputs changed: refitting when they settle…");
  } else if (fit_state_ == JobState::pending) {
    text = running ? tr("Fitting the law (%1)…")
                         .arg(QLatin1String(kEstimatorKeys[static_cast<int>(params_.estimator)]))
                   : tr("Fit queued…");
  } else if (boot_state_ == JobState::pending) {
    text =
        tr("Bootstrap: %1 of %2 resamples…").arg(ui.progressBar->value()).arg(requested_.resamples);
  } else if (fit_state_ == JobState::cancelled || boot_state_ == JobState::cancelled) {
    text = tr("Cancelled: press Recompute for the interval");
  } else if (fit_state_ == JobState::failed || boot_state_ == JobState::failed) {
    text = tr("Failed: see the status on the left");
  } else {
    text = tr("Fit and bootstrap up to date");
  }
  if (ui.jobLabel->text() != text) ui.jobLabel->setText(text);
  ui.cancelButton->setEnabled(isBusy());
  ui.rerunButton->setEnabled(!isBusy());
  if (!isBusy() && boot_state_ == JobState::current)
    ui.progressBar->setValue(ui.progressBar->maximum());
  if (!isBusy() && boot_state_ != JobState::current) ui.progressBar->setValue(0);
}

std::optional<FitResult> IsoflopsPanel::shownFit() const {
  if (const FitResult* f = displayFit()) return *f;
  return std::nullopt;
}

const FitResult* IsoflopsPanel::displayFit() const {
  if (fit_ && (fit_state_ == JobState::current || fit_state_ == JobState::pending)) return &*fit_;
  return nullptr;
}

bool IsoflopsPanel::bandShown() const {
  return !boot_laws_.empty() &&
         (boot_state_ == JobState::current || boot_state_ == JobState::pending);
}

std::optional<BandPoint> IsoflopsPanel::forecastInterval() const {
  if (!bandShown()) return std::nullopt;
  try {
    return forecast_band(boot_laws_, {view_.target_flops}).front();
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// ================================================================= read-outs

void IsoflopsPanel::buildReadouts() {
  struct Row {
    const char* key;
    QString name;
    QString tip;
  };
  const Row rows[3][6] = {
      {{"target", tr("Target C*"),
        tr("The compute of the flagship run (FLOPs): the Budget panel's C by default.")},
       {"n_opt", tr("N_opt @ C*"),
        tr("Recommended parameters at C*: the IsoFLOPs power law N_opt = k·C^a "
           "extrapolated to C* (from the fitted law when the ladder has no budget labels).")},
       {"d_opt", tr("D_opt @ C*"), tr("Recommended tokens at C*: D_opt = k·C^b (C = 6ND).")},
       {"forecast", tr("Forecast L*"),
        tr("The fitted law's optimal loss at C* (nats/token): L(N_opt, D_opt) "
           "with N_opt = [αA/(βB)·(C/6)^β]^(1/(α+β)).")},
       {"ci", tr("95 % interval"),
        tr("Bootstrap percentile interval of the optimal loss at C*: the law refitted "
           "on the ladder resampled with replacement.")},
       {"decades", tr("Extrapolation"),
        tr("log10(C* / the ladder's largest budget): how far the forecast "
           "reaches beyond the data.")}},
      {{"a", tr("a (N ∝ C^a)"),
        tr("Exponent of N_opt ∝ C^a fitted to the parabola vertices (log-log least "
           "squares). Kaplan: 0.73; Chinchilla: ≈ 0.5.")},
       {"b", tr("b (D ∝ C^b)"), tr("Exponent of D_opt ∝ C^b.")},
       {"sum", tr("a + b"), tr("Must be 1: D = C/6N at every vertex, so N_opt·D_opt ∝ C.")},
       {"n_opt_law", tr("N_opt (law)"),
        tr("The fitted law's compute-optimal N at C*, with the bootstrap's 95 % interval.")},
       {"bias", tr("With bias"),
        tr("N_opt at C* from the same ladder with the LR-decay bias injected, and how "
           "far it moved from the clean ladder's: the bias is not uniform, so it tilts a.")},
       {"offset", tr("With offset"),
        tr("N_opt at C* with a uniform offset added to every run: a parabola "
           "shifted up has the same vertex, so nothing moves.")}},
      {{"E", tr("Fitted E"), tr("Irreducible loss E of the fitted law (nats/token).")},
       {"A", tr("Fitted A"), tr("Capacity coefficient A of the fitted law.")},
       {"alpha", tr("Fitted α"), tr("Capacity exponent α of the fitted law.")},
       {"B", tr("Fitted B"), tr("Data coefficient B of the fitted law.")},
       {"beta", tr("Fitted β"), tr("Data exponent β of the fitted law.")},
       {"fit", tr("Fit"), tr("Estimator and the number of runs fitted.")}}};
  const QString widest[3] = {QStringLiteral("1.026e+24 FLOPs (Budget panel)"),
                             QStringLiteral("999.99B [999.9B \u2013 999.9B]"),
                             QStringLiteral("huber-log, 9999 runs")};
  for (int c = 0; c < 3; ++c) {
    for (int r = 0; r < 6; ++r) {
      const Row& row = rows[c][r];
      auto* name = new QLabel(row.name + QLatin1Char(':'), ui.readoutBox);
      name->setToolTip(row.tip);
      auto* value = new QLabel(ui.readoutBox);
      value->setObjectName(QStringLiteral("readout_") + QLatin1String(row.key));
      value->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
      value->setToolTip(row.tip);
      value->setAccessibleName(row.name);
      QFont f = value->font();
      f.setBold(true);
      value->setFont(f);
      fixWidth(value, widest[c]);
      ui.readoutGrid->addWidget(name, r, c * 2);
      ui.readoutGrid->addWidget(value, r, c * 2 + 1);
      readouts_.insert(QLatin1String(row.key), value);
    }
  }
  for (int c = 0; c < 3; ++c) ui.readoutGrid->setColumnStretch(c * 2 + 1, 1);
  const QFontMetrics fm(ui.statusText->font());
  ui.statusText->setFixedHeight(fm.lineSpacing() * 3 + 14);
  ui.statusText->setAccessibleName(tr("Status"));
  ui.statusText->setLineWrapMode(QPlainTextEdit::WidgetWidth);
  QFont small = ui.statusText->font();
  small.setPointSizeF(small.pointSizeF() * 0.92);
  ui.statusText->setFont(small);
  ui.jobLabel->setFixedSize(
      QFontMetrics(ui.jobLabel->font())
              .horizontalAdvance(QStringLiteral("Cancelled: press Recompute for the interval")) +
          6,
      QFontMetrics(ui.jobLabel->font()).height() + 2);
  ui.progressBar->setFixedWidth(150);
  ui.progressBar->setFormat(QStringLiteral("%p %"));
  ui.cancelButton->setToolTip(
      tr("Stop the fit and bootstrap in progress; the interval is then not shown."));
  ui.rerunButton->setToolTip(tr("Run the fit and the bootstrap again for the current inputs."));
}

void IsoflopsPanel::updateReadouts() {
  auto set = [this](const char* key, const QString& text, bool stale = false) {
    QLabel* l = readouts_[QLatin1String(key)];
    if (l->text() != text) l->setText(text);
    const QString style = stale ? QStringLiteral("color: #8a8a8a;") : QString();
    if (l->styleSheet() != style) l->setStyleSheet(style);
  };
  const LadderView& v = view_;
  const double C = v.target_flops;
  const FitResult* f = displayFit();
  const bool fit_stale = f && fit_state_ == JobState::pending;
  auto fit_text = [this](const QString& ok) -> QString {
    switch (fit_state_) {
      case JobState::failed: return tr("n/a (fit failed)");
      case JobState::cancelled: return tr("cancelled");
      case JobState::pending:
        if (!fit_) return tr("updating…");
        [[fallthrough]];
      default: return ok;
    }
  };
  set("target",
      sci(C, 3) + (params_.follow_budget ? tr(" FLOPs (Budget panel)") : tr(" FLOPs (manual)")));
  if (v.n_opt) {
    set("n_opt", count(*v.n_opt) + tr(" params"));
    set("d_opt", count(*v.d_opt) + tr(" tokens"));
  } else if (!v.labelled && f) {
    const ComputeOptimum o = analytic_optimum(f->law, C);
    set("n_opt", count(o.n_params) + tr(" (law)"), fit_stale);
    set("d_opt", count(o.n_tokens) + tr(" (law)"), fit_stale);
  } else {
    set("n_opt", tr("n/a (see status)"));
    set("d_opt", tr("n/a (see status)"));
  }
  std::optional<BandPoint> ci = forecastInterval();
  const bool boot_stale = ci && boot_state_ == JobState::pending;
  set("forecast", f ? nats(optimal_loss(f->law, C)) + tr(" nats") : fit_text(QString()), fit_stale);
  if (ci) {
    set("ci", QStringLiteral("[%1, %2] nats").arg(nats(ci->low), nats(ci->high)), boot_stale);
  } else {
    switch (boot_state_) {
      case JobState::failed: set("ci", tr("n/a (see status)")); break;
      case JobState::cancelled: set("ci", tr("cancelled")); break;
      default: set("ci", tr("updating…")); break;
    }
  }
  const double decades = v.extrapolation_decades;
  set("decades", !std::isfinite(decades) ? tr("n/a")
                 : decades > 0           ? tr("%1 decades beyond").arg(fixed(decades, 2))
                                         : tr("none (interpolation)"));
  if (v.exponents) {
    set("a", fixed(v.exponents->a, 4));
    set("b", fixed(v.exponents->b, 4));
    set("sum", fixed(v.exponents->sum, 4) +
                   (v.exponents->sums_to_one ? tr(" \u2713 (C = 6ND)") : tr(" \u2717 (≠ 1)")));
  } else if (f) {
    const ScalingExponents e = exponents_from_law(f->law);
    set("a", fixed(e.a, 4) + tr(" (law)"), fit_stale);
    set("b", fixed(e.b, 4) + tr(" (law)"), fit_stale);
    set("sum", tr("1.0000 (law)"), fit_stale);
  } else {
    set("a", tr("n/a (see status)"));
    set("b", tr("n/a (see status)"));
    set("sum", tr("n/a"));
  }
  if (f) {
    const double n = analytic_optimum(f->law, C).n_params;
    QString t = count(n);
    if (ci) {
      const BandPoint ns = optimal_params_interval(boot_laws_, C);
      t += QStringLiteral(" [%1 \u2013 %2]").arg(count(ns.low, 1), count(ns.high, 1));
    }
    set("n_opt_law", t, fit_stale || boot_stale);
  } else {
    set("n_opt_law", fit_text(QString()));
  }
  if (!v.synthetic) {
    set("bias", tr("n/a (synthetic only)"));
    set("offset", tr("n/a (synthetic only)"));
  } else {
    if (v.n_bias && v.bias_shift)
      set("bias", tr("%1 (moved %2)").arg(count(*v.n_bias), signedPercent(*v.bias_shift)));
    else
      set("bias", tr("n/a (no vertex)"));
    if (v.n_offset && v.offset_shift) {
      const double rel = *v.offset_shift;
      set("offset", std::abs(rel) < 1e-9
                        ? tr("unchanged (\u0394 0.000 %)")
                        : tr("%1 (moved %2)").arg(count(*v.n_offset), signedPercent(rel, 3)));
    } else {
      set("offset", tr("n/a (no vertex)"));
    }
  }
  if (f) {
    set("E", nats(f->law.E), fit_stale);
    set("A", nats(f->law.A, 1), fit_stale);
    set("alpha", nats(f->law.alpha), fit_stale);
    set("B", nats(f->law.B, 1), fit_stale);
    set("beta", nats(f->law.beta), fit_stale);
    set("fit",
        tr("%1, %2 runs")
            .arg(QLatin1String(kEstimatorKeys[static_cast<int>(f->estimator)]))
            .arg(f->n_points),
        fit_stale);
  } else {
    for (const char* k : {"E", "A", "alpha", "B", "beta"}) set(k, fit_text(QString()));
    set("fit", fit_state_ == JobState::failed ? tr("failed (see status)") : fit_text(QString()));
  }
}

void IsoflopsPanel::updateStatus() {
  QStringList lines;
  if (!load_error_.isEmpty()) lines << tr("Error: %1").arg(load_error_);
  if (!view_error_.isEmpty())
    lines << tr("Error: %1 — the previous ladder is shown.").arg(view_error_);
  const LadderView& v = view_;
  if (v.synthetic)
    lines << tr("Synthetic ladder: %1 runs from %2, noise %3, seed %4%5%6%7.")
                 .arg(v.points.size())
                 .arg(params_.law_preset == 0   ? tr("Chinchilla Approach 3")
                      : params_.law_preset == 1 ? tr("Besiroglu et al. 2024")
                                                : tr("a custom law"))
                 .arg(qs(format_percent(params_.noise, 2)))
                 .arg(params_.seed)
                 .arg(params_.bias_on ? tr(", LR-decay bias %1 nats (%2)")
                                            .arg(fixed(params_.bias_nats, 3),
                                                 qs(std::string(to_string(params_.bias_mode))))
                                      : QString())
                 .arg(params_.offset_on ? tr(", offset %1 nats").arg(fixed(params_.offset_nats, 3))
                                        : QString())
                 .arg(params_.outlier ? tr(", one diverged run") : QString());
  else
    lines << csv_summary_;
  for (const std::string& s : v.skipped) lines << tr("Budget %1 — skipped.").arg(qs(s));
  if (!v.exponents && !v.exponent_error.empty())
    lines << tr("Exponents: %1.").arg(qs(v.exponent_error));
  if (v.synthetic && !v.lesson_error.empty() && (!v.n_bias || !v.n_offset || !v.n_clean))
    lines << tr("Lesson: %1").arg(qs(v.lesson_error));
  if (fit_state_ == JobState::failed) lines << tr("Fit failed: %1").arg(qs(fit_error_));
  if (fit_state_ == JobState::cancelled) lines << tr("Fit cancelled: press Recompute.");
  if (const FitResult* f = displayFit())
    lines << tr("Fit (%1): objective %2 over %3 runs, %4 L-BFGS starts%5%6.")
                 .arg(QLatin1String(kEstimatorKeys[static_cast<int>(f->estimator)]))
                 .arg(sci(f->objective, 3))
                 .arg(f->n_points)
                 .arg(f->starts)
                 .arg(f->converged ? tr(", converged") : tr(", NOT converged"))
                 .arg(fit_state_ == JobState::pending ? tr(" — updating…") : QString());
  if (boot_state_ == JobState::failed && fit_state_ != JobState::failed)
    lines << tr("Bootstrap failed: %1").arg(qs(boot_error_));
  if (boot_state_ == JobState::cancelled)
    lines << tr("Bootstrap cancelled: no interval for these inputs; press Recompute to run it.");
  if (boot_state_ == JobState::current)
    lines << tr("Bootstrap: %1 resamples, %2 refitted, %3 degenerate skipped.")
                 .arg(boot_successful_ + boot_skipped_)
                 .arg(boot_successful_)
                 .arg(boot_skipped_);
  std::optional<BandPoint> ci = forecastInterval();
  if (ci && boot_state_ == JobState::current) {
    try {
      const ExtrapolationRisk r =
          extrapolation_risk(v.ladder_max_flops, v.target_flops, ci->high - ci->low);
      lines.insert(0, tr("Risk: %1.").arg(qs(r.statement)));
    } catch (const std::invalid_argument& e) {
      lines.insert(0, tr("Risk: n/a (%1).").arg(qs(e.what())));
    }
  }
  const QString text = lines.join(QLatin1Char('\n'));
  if (ui.statusText->toPlainText() != text) ui.statusText->setPlainText(text);
}

QLabel* IsoflopsPanel::readout(const QString& key) const { return readouts_.value(key); }
SliderSpin* IsoflopsPanel::control(const QString& key) const { return sliders_.value(key); }
QComboBox* IsoflopsPanel::combo(const QString& key) const { return combos_.value(key); }
QCheckBox* IsoflopsPanel::checkBox(const QString& key) const { return checks_.value(key); }
QPushButton* IsoflopsPanel::button(const QString& key) const {
  if (key == QLatin1String("cancel")) return ui.cancelButton;
  if (key == QLatin1String("recompute")) return ui.rerunButton;
  return buttons_.value(key);
}
QString IsoflopsPanel::statusText() const { return ui.statusText->toPlainText(); }

QStringList IsoflopsPanel::readoutTexts() const {
  QStringList out;
  for (QLabel* l : readouts_) out << l->text();
  out << ui.statusText->toPlainText();
  out << ui.jobLabel->text();
  return out;
}

// ===================================================================== plots

void IsoflopsPanel::buildPlots() {
  const QFont tick = [] {
    QFont f;
    f.setPointSizeF(8.0);
    return f;
  }();
  // (1) loss vs N per budget
  ladder_plot_ = new PlotWidget(tr("(1) IsoFLOPs: loss vs N per budget"), this);
  ladder_plot_->setXAxis(tr("parameters N"), true, fmtSi);
  ladder_plot_->setYAxis(tr("final loss (nats/token)"), false);
  ladder_vertices_ = addGraph(
      ladder_plot_, tr("vertex"), Qt::NoPen,
      QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(Qt::black, 1.3), Qt::white, 8), false);
  ladder_outliers_ = addGraph(
      ladder_plot_, tr("outlier"), Qt::NoPen,
      QCPScatterStyle(QCPScatterStyle::ssCrossCircle, QPen(kRed, 1.5), Qt::white, 9), false);
  ladder_plot_->showLegendBelow(6);
  ladder_note_ = note(ladder_plot_, Qt::AlignRight | Qt::AlignTop, 0.98, 0.03);

  // (2) N_opt and D_opt vs C
  exponent_plot_ = new PlotWidget(tr("(2) N_opt, D_opt vs C"), this);
  exponent_plot_->setXAxis(tr("compute C (FLOPs)"), true, fmtSci);
  exponent_plot_->setYAxis(tr("N_opt (params) / D_opt (tokens)"), true, fmtSi);
  exp_kaplan_ = addGraph(exponent_plot_, tr("Kaplan a = 0.73"), pen(kGray, 1.3, Qt::DashLine));
  exp_chinchilla_ =
      addGraph(exponent_plot_, tr("Chinchilla a ≈ 0.5"), pen(kGray, 1.3, Qt::DotLine));
  exp_n_fit_ = addGraph(exponent_plot_, tr("N_opt fit"), pen(kBlue));
  exp_d_fit_ = addGraph(exponent_plot_, tr("D_opt fit"), pen(kGreen));
  exp_n_pts_ =
      addGraph(exponent_plot_, tr("N_opt (vertex)"), Qt::NoPen,
               QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(kBlue, 1.5), Qt::white, 7), false);
  exp_d_pts_ =
      addGraph(exponent_plot_, tr("D_opt (vertex)"), Qt::NoPen,
               QCPScatterStyle(QCPScatterStyle::ssSquare, QPen(kGreen, 1.5), Qt::white, 7), false);
  exponent_plot_->showLegendBelow(2);
  exp_n_pts_->removeFromLegend();
  exp_d_pts_->removeFromLegend();
  exp_target_ = vline(exponent_plot_, pen(kRed, 1.1, Qt::DotLine));
  exp_note_ = note(exponent_plot_, Qt::AlignLeft | Qt::AlignTop, 0.02, 0.03);

  // (3) the forecast
  forecast_plot_ = new PlotWidget(tr("(3) Forecast: optimal loss vs C"), this);
  forecast_plot_->setXAxis(tr("compute C (FLOPs)"), true, fmtSci);
  forecast_plot_->setYAxis(tr("loss (nats/token)"), false);
  fc_low_ = addGraph(forecast_plot_, QString(), Qt::NoPen);
  fc_high_ = addGraph(forecast_plot_, tr("95 % band"), Qt::NoPen);
  fc_high_->setBrush(QColor(31, 119, 180, 60));
  fc_high_->setChannelFillGraph(fc_low_);
  fc_runs_ = addGraph(forecast_plot_, tr("runs"), Qt::NoPen,
                      QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(150, 150, 150), 3.5), false);
  fc_vertices_ = addGraph(
      forecast_plot_, tr("vertices"), Qt::NoPen,
      QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(Qt::black, 1.2), Qt::white, 7), false);
  fc_truth_ = addGraph(forecast_plot_, tr("true law"), pen(kGray, 1.3, Qt::DashLine));
  fc_fit_ = addGraph(forecast_plot_, tr("fitted law"), pen(kBlue, 2.0));
  fc_target_pt_ = addGraph(forecast_plot_, tr("forecast at C*"), Qt::NoPen,
                           QCPScatterStyle(QCPScatterStyle::ssDisc, kRed, 6), false);
  fc_error_ = new QCPErrorBars(forecast_plot_->xAxis, forecast_plot_->yAxis);
  fc_error_->setDataPlottable(fc_target_pt_);
  fc_error_->setPen(pen(kRed, 1.5));
  fc_error_->setWhiskerWidth(8);
  fc_error_->removeFromLegend();
  forecast_plot_->showLegendBelow(3);
  fc_low_->removeFromLegend();
  fc_target_ = vline(forecast_plot_, pen(kRed, 1.1, Qt::DotLine));
  fc_ladder_edge_ = vline(forecast_plot_, pen(kGray, 1.0, Qt::DashDotLine));
  fc_note_ = note(forecast_plot_, Qt::AlignRight | Qt::AlignTop, 0.98, 0.03);

  // (4) the decomposition at C*
  decomposition_plot_ = new PlotWidget(tr("(4) Loss at C*: E + capacity + data"), this);
  decomposition_plot_->setYAxis(tr("loss (nats/token)"), false);
  {
    const struct {
      QString name;
      QColor c;
    } parts[] = {{tr("E"), kE}, {tr("capacity A/N^α"), kCapacity}, {tr("data B/D^β"), kData}};
    QCPBars* below = nullptr;
    for (std::size_t k = 0; k < 3; ++k) {
      auto* b = new QCPBars(decomposition_plot_->xAxis, decomposition_plot_->yAxis);
      b->setName(parts[k].name);
      b->setBrush(parts[k].c);
      b->setPen(QPen(parts[k].c.darker(130)));
      b->setWidth(0.55);
      if (below) b->moveAbove(below);
      below = b;
      dec_bars_[k] = b;
    }
    for (auto& t : dec_labels_) {
      t = new QCPItemText(decomposition_plot_);
      t->setPositionAlignment(Qt::AlignHCenter | Qt::AlignVCenter);
      QFont f = tick;
      f.setPointSizeF(7.5);
      t->setFont(f);
      t->setPadding(QMargins(3, 1, 3, 1));
      t->setBrush(QColor(255, 255, 255, 200));
      t->setTextAlignment(Qt::AlignLeft);
    }
    decomposition_plot_->showLegendBelow(3);
    dec_note_ = note(decomposition_plot_, Qt::AlignHCenter | Qt::AlignVCenter, 0.5, 0.5);
  }

  // (5) baseline vs candidate
  recipe_plot_ = new PlotWidget(tr("(5) Baseline vs candidate recipe"), this);
  recipe_plot_->setXAxis(tr("compute C (FLOPs)"), true, fmtSci);
  recipe_plot_->setYAxis(tr("optimal loss (nats/token)"), false);
  rc_base_ = addGraph(recipe_plot_, tr("baseline (fitted)"), pen(kBlue, 2.0));
  rc_cand_ = addGraph(recipe_plot_, tr("candidate"), pen(kOrange, 2.0, Qt::DashLine));
  recipe_plot_->yAxis2->setVisible(true);
  recipe_plot_->yAxis2->setLabel(tr("Δ = candidate − baseline (nats)"));
  recipe_plot_->yAxis2->setTickLabelFont(tick);
  recipe_plot_->yAxis2->setLabelFont(tick);
  recipe_plot_->yAxis2->setLabelColor(kPurple);
  recipe_plot_->yAxis2->setTickLabelColor(kPurple);
  rc_delta_ = recipe_plot_->addGraph(recipe_plot_->xAxis, recipe_plot_->yAxis2);
  rc_delta_->setName(tr("Δ (right)"));
  rc_delta_->setPen(pen(kPurple, 1.3));
  rc_zero_ = recipe_plot_->addGraph(recipe_plot_->xAxis, recipe_plot_->yAxis2);
  rc_zero_->setPen(pen(kPurple, 0.8, Qt::DotLine));
  recipe_plot_->showLegendBelow(3);
  recipe_plot_->legend->setColumnSpacing(4);
  rc_zero_->removeFromLegend();
  rc_target_ = vline(recipe_plot_, pen(kRed, 1.1, Qt::DotLine));
  rc_cross_ = vline(recipe_plot_, pen(kPurple, 1.3, Qt::DashDotLine));
  rc_note_ = note(recipe_plot_, Qt::AlignRight | Qt::AlignTop, 0.98, 0.03);

  // (6) ladder design
  design_plot_ = new PlotWidget(tr("(6) Ladder design: Var at C*"), this);
  design_plot_->setYAxis(tr("Var(ŷ at C*) ∝"), true, fmtSi);
  design_plot_->setHoverFormat(
      [](double v) {
        static const char* names[] = {"this ladder", "clustered", "spread",
                                      "skewed",      "two-point", "3 % plan"};
        const long i = std::lround(v);
        return i >= 0 && i < 6 ? QString::fromUtf8(names[i]) : QString();
      },
      fmtSi);
  ds_this_ = new QCPBars(design_plot_->xAxis, design_plot_->yAxis);
  ds_this_->setName(tr("this ladder"));
  ds_this_->setBrush(kBlue);
  ds_this_->setPen(QPen(kBlue.darker(130)));
  ds_this_->setWidth(0.6);
  ds_bars_ = new QCPBars(design_plot_->xAxis, design_plot_->yAxis);
  ds_bars_->setName(tr("alternative designs"));
  ds_bars_->setBrush(QColor(170, 170, 170));
  ds_bars_->setPen(QPen(QColor(120, 120, 120)));
  ds_bars_->setWidth(0.6);
  ds_this_->setBaseValue(1e-3);
  ds_bars_->setBaseValue(1e-3);
  {
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    const QString names[] = {tr("this"), tr("clust."), tr("spread"),
                             tr("skew"), tr("2-pt"),   tr("3 %")};
    for (int i = 0; i < 6; ++i) ticker->addTick(i, names[i]);
    design_plot_->xAxis->setTicker(ticker);
    design_plot_->xAxis->setRange(-0.6, 5.6);
    design_plot_->xAxis->setTickLabelFont(tick);
  }
  for (int i = 0; i < 6; ++i) {
    auto* t = new QCPItemText(design_plot_);
    t->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
    QFont f = tick;
    f.setPointSizeF(7.5);
    t->setFont(f);
    ds_labels_.push_back(t);
  }
  ds_note_ = note(design_plot_, Qt::AlignRight | Qt::AlignTop, 0.98, 0.03);

  plots_ = {ladder_plot_,        exponent_plot_, forecast_plot_,
            decomposition_plot_, recipe_plot_,   design_plot_};
  for (int i = 0; i < 6; ++i)
    ui.plotGrid->addWidget(plots_[static_cast<std::size_t>(i)], i / 3, i % 3);
  for (int c = 0; c < 3; ++c) ui.plotGrid->setColumnStretch(c, 1);
  ui.plotGrid->setRowStretch(0, 1);
  ui.plotGrid->setRowStretch(1, 1);
  for (PlotWidget* p : plots_) {
    p->legend->setFont(tick);
    p->setMinimumSize(200, 150);
  }
}

bool IsoflopsPanel::inputsChanged(int plot, std::vector<double> inputs) {
  auto& last = plot_inputs_[static_cast<std::size_t>(plot)];
  if (last == inputs) return false;
  last = std::move(inputs);
  return true;
}

void IsoflopsPanel::replot(PlotWidget* p) {
  if (isVisible())
    p->requestReplot();
  else
    replot_when_shown_ = true;
}

void IsoflopsPanel::refreshIfStale() {
  if (!scenario_stale_) return;
  scenario_stale_ = false;
  refresh();
}

void IsoflopsPanel::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  refreshIfStale();
  if (replot_when_shown_) {
    replot_when_shown_ = false;
    for (PlotWidget* p : plots_) p->requestReplot();
  }
}

void IsoflopsPanel::updatePlots() {
  drawLadderPlot();
  drawExponentPlot();
  drawForecastPlot();
  drawDecompositionPlot();
  drawRecipePlot();
  drawDesignPlot();
}

void IsoflopsPanel::drawLadderPlot() {
  const LadderView& v = view_;
  Key k;
  k.points(v.points).add(v.labelled, v.optima.size());
  for (const IsoflopOptimum& o : v.optima) k.add(o.n_opt, o.loss_opt);
  if (!inputsChanged(0, std::move(k.v))) return;
  PlotWidget* p = ladder_plot_;
  // Groups: one per budget label, else 8 bins of log 6ND.
  const LadderGroups grouped = ladder_groups(v);
  const std::vector<LadderGroup>& groups = grouped.groups;
  const std::vector<double>& out_n = grouped.outlier_n;
  const std::vector<double>& out_loss = grouped.outlier_loss;
  auto groupName = [&v](double c) {
    if (v.labelled) return fmtSci(c);
    const int e = static_cast<int>(std::floor(std::log10(c)));
    return QStringLiteral("~%1e%2").arg(QString::number(c / std::pow(10.0, e), 'f', 1)).arg(e);
  };
  while (ladder_points_.size() < groups.size()) {
    ladder_points_.push_back(addGraph(p, QString(), Qt::NoPen, QCPScatterStyle(), false));
    ladder_curves_.push_back(addGraph(p, QString(), pen(Qt::black)));
    ladder_curves_.back()->removeFromLegend();
  }
  std::vector<double> vx, vy;
  double nmin = 1e300, nmax = 0, lmin = 1e300, lmax = -1e300;
  for (std::size_t i = 0; i < ladder_points_.size(); ++i) {
    QCPGraph* pts = ladder_points_[i];
    QCPGraph* curve = ladder_curves_[i];
    if (i >= groups.size()) {
      pts->setVisible(false);
      curve->setVisible(false);
      continue;
    }
    const LadderGroup& g = groups[i];
    const QColor c = ramp(
        groups.size() > 1 ? static_cast<double>(i) / static_cast<double>(groups.size() - 1) : 0.0);
    pts->setVisible(true);
    pts->setName(groupName(g.budget_flops));
    pts->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, c, v.labelled ? 5.5 : 4.5));
    setData(pts, g.n_params, g.loss);
    for (std::size_t j = 0; j < g.n_params.size(); ++j) {
      nmin = std::min(nmin, g.n_params[j]);
      nmax = std::max(nmax, g.n_params[j]);
      lmin = std::min(lmin, g.loss[j]);
      lmax = std::max(lmax, g.loss[j]);
    }
    curve->setVisible(g.optimum.has_value());
    if (g.optimum) {
      curve->setPen(pen(c, 1.4));
      setData(curve, g.curve_n_params, g.curve_loss);
      vx.push_back(g.optimum->n_opt);
      vy.push_back(g.optimum->loss_opt);
    }
  }
  setData(ladder_vertices_, vx, vy);
  ladder_vertices_->setVisible(!vx.empty());
  setData(ladder_outliers_, out_n, out_loss);
  ladder_outliers_->setVisible(!out_n.empty());
  // Vertices inside the view; an outlier beyond it is noted, not allowed to
  // squash every parabola.
  for (std::size_t j = 0; j < vx.size(); ++j)
    if (vx[j] > nmin / 3 && vx[j] < nmax * 3) {
      lmin = std::min(lmin, vy[j]);
      nmin = std::min(nmin, vx[j]);
      nmax = std::max(nmax, vx[j]);
    }
  if (nmax > 0) {
    p->xAxis->setRange(nmin / 1.4, nmax * 1.4);
    const double span = std::max(lmax - lmin, 1e-3);
    p->yAxis->setRange(lmin - 0.06 * span, lmax + 0.22 * span);
  }
  QStringList notes;
  int above = 0;
  for (double l : out_loss)
    if (l > p->yAxis->range().upper) ++above;
  if (above) notes << tr("%1 outlier(s) above the view").arg(above);
  if (!v.skipped.empty()) notes << tr("%1 budget(s): no vertex").arg(v.skipped.size());
  if (!v.labelled) notes << tr("no budget labels: no parabolas\ncolour = 6ND");
  ladder_note_->setText(notes.join(QLatin1Char('\n')));
  ladder_note_->setVisible(!notes.isEmpty());
  // The legend: budgets first, then the markers.
  p->legend->clearItems();
  for (std::size_t i = 0; i < groups.size(); ++i) ladder_points_[i]->addToLegend();
  if (!vx.empty()) ladder_vertices_->addToLegend();
  if (!out_n.empty()) ladder_outliers_->addToLegend();
  p->legend->setWrap(std::min<int>(4, p->legend->itemCount()));
  p->legend->setColumnSpacing(4);
  p->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
  replot(p);
}

void IsoflopsPanel::drawExponentPlot() {
  const LadderView& v = view_;
  const FitResult* f = v.exponents ? nullptr : displayFit();
  Key k;
  k.add(v.target_flops, v.ladder_min_flops, v.ladder_max_flops, v.exponents.has_value(),
        f != nullptr);
  for (const IsoflopOptimum& o : v.optima) k.add(o.budget_flops, o.n_opt);
  if (v.exponents) k.add(v.exponents->a, v.exponents->n_coefficient, v.exponents->d_coefficient);
  if (f) k.law(f->law);
  if (!inputsChanged(1, std::move(k.v))) return;
  PlotWidget* p = exponent_plot_;
  const double lo = v.ladder_min_flops / 3, hi = std::max(v.target_flops, v.ladder_max_flops) * 3;
  const std::vector<double> cs = logGrid(lo, hi, 60);
  std::vector<double> n, d, kap, chin, px, pn, pd;
  for (const IsoflopOptimum& o : v.optima) {
    px.push_back(o.budget_flops);
    pn.push_back(o.n_opt);
    pd.push_back(o.d_opt);
  }
  setData(exp_n_pts_, px, pn);
  setData(exp_d_pts_, px, pd);
  QString head;
  const std::optional<ExponentCurves> curves =
      exponent_curves(v, f ? std::optional<LossLaw>(f->law) : std::nullopt, cs);
  if (curves && !curves->from_law) {
    const ScalingExponents& e = curves->exponents;
    exp_n_fit_->setName(tr("N ∝ C^%1 (fit)").arg(fixed(e.a, 3)));
    exp_d_fit_->setName(tr("D ∝ C^%1 (fit)").arg(fixed(e.b, 3)));
    head = tr("a = %1   b = %2\na + b = %3 %4")
               .arg(fixed(e.a, 4), fixed(e.b, 4), fixed(e.sum, 4),
                    e.sums_to_one ? QStringLiteral("\u2713") : QStringLiteral("\u2717"));
  } else if (curves) {
    const double a = curves->exponents.a;
    exp_n_fit_->setName(tr("N ∝ C^%1 (law)").arg(fixed(a, 3)));
    exp_d_fit_->setName(tr("D ∝ C^%1 (law)").arg(fixed(curves->exponents.b, 3)));
    head = tr("from the fitted law (no budget labels)\na = β/(α+β) = %1\nb = %2, a + b = 1")
               .arg(fixed(a, 4), fixed(curves->exponents.b, 4));
  }
  double ymin = 1e300, ymax = 0;
  if (curves) {
    n = curves->n_opt;
    d = curves->d_opt;
    kap = curves->kaplan_n;
    chin = curves->chinchilla_n;
    for (const auto* series : {&n, &d, &kap, &chin, &pn, &pd})
      for (double y : *series)
        if (std::isfinite(y) && y > 0) {
          ymin = std::min(ymin, y);
          ymax = std::max(ymax, y);
        }
  }
  setData(exp_n_fit_, cs, n);
  setData(exp_d_fit_, cs, d);
  setData(exp_kaplan_, cs, kap);
  setData(exp_chinchilla_, cs, chin);
  p->xAxis->setRange(lo, hi);
  if (ymax > 0) p->yAxis->setRange(ymin / 3, ymax * 30);
  placeV(exp_target_, v.target_flops);
  exp_note_->setText(head.isEmpty() ? tr("no exponents (see status)") : head);
  replot(p);
}

void IsoflopsPanel::drawForecastPlot() {
  const LadderView& v = view_;
  const FitResult* f = displayFit();
  const bool band = bandShown();
  std::optional<BandPoint> ci = forecastInterval();
  Key k;
  k.points(v.points).add(v.target_flops, result_serial_, f != nullptr, band, v.truth.has_value(),
                         static_cast<int>(fit_state_), static_cast<int>(boot_state_));
  if (v.truth) k.law(*v.truth);
  if (!inputsChanged(2, std::move(k.v))) return;
  PlotWidget* p = forecast_plot_;
  const double lo = v.ladder_min_flops / 3, hi = std::max(v.target_flops, v.ladder_max_flops) * 3;
  std::vector<double> rx, ry, ox, oy;
  double ymax = -1e300, ymin = 1e300;
  for (std::size_t i = 0; i < v.points.size(); ++i) {
    const LadderPoint& q = v.points[i];
    if (q.outlier) continue;
    rx.push_back(v.run_flops[i]);
    ry.push_back(q.loss);
    ymax = std::max(ymax, q.loss);
    ymin = std::min(ymin, q.loss);
  }
  setData(fc_runs_, rx, ry);
  for (const IsoflopOptimum& o : v.optima) {
    ox.push_back(o.budget_flops);
    oy.push_back(o.loss_opt);
  }
  setData(fc_vertices_, ox, oy);
  fc_vertices_->setVisible(!ox.empty());
  const std::vector<double> cs = logGrid(lo, hi, 80);
  std::vector<double> fy, ty;
  if (f)
    for (double c : cs) fy.push_back(optimal_loss(f->law, c));
  if (v.truth)
    for (double c : cs) ty.push_back(optimal_loss(*v.truth, c));
  setData(fc_fit_, f ? cs : std::vector<double>{}, fy);
  setData(fc_truth_, v.truth ? cs : std::vector<double>{}, ty);
  fc_truth_->setVisible(v.truth.has_value());
  const bool stale =
      (f && fit_state_ == JobState::pending) || (band && boot_state_ == JobState::pending);
  fc_fit_->setPen(pen(stale ? kStale : kBlue, 2.0));
  fc_high_->setBrush(stale ? QColor(160, 160, 160, 50) : QColor(31, 119, 180, 60));
  std::vector<double> bx, bl, bh;
  if (band)
    for (const BandPoint& b : band_)
      if (b.flops >= lo / 1.4 && b.flops <= hi * 1.4) {
        bx.push_back(b.flops);
        bl.push_back(b.low);
        bh.push_back(b.high);
      }
  setData(fc_low_, bx, bl);
  setData(fc_high_, bx, bh);
  for (const auto* s : {&fy, &ty})
    for (double y : *s) ymin = std::min(ymin, y);
  for (double y : bl) ymin = std::min(ymin, y);
  fc_target_pt_->data()->clear();
  fc_error_->data()->clear();
  if (f) {
    const double l = optimal_loss(f->law, v.target_flops);
    fc_target_pt_->addData(v.target_flops, l);
    if (ci) fc_error_->setData(QVector<double>{l - ci->low}, QVector<double>{ci->high - l});
    ymin = std::min(ymin, ci ? ci->low : l);
  }
  p->xAxis->setRange(lo, hi);
  if (ymax > ymin) {
    const double span = ymax - ymin;
    p->yAxis->setRange(ymin - 0.05 * span, ymax + 0.05 * span);
  }
  placeV(fc_target_, v.target_flops);
  placeV(fc_ladder_edge_, v.ladder_max_flops);
  const double decades = v.extrapolation_decades;
  QString text = tr("C* = %1").arg(fmtSci(v.target_flops));
  if (f) {
    text += tr("\nL* = %1 nats").arg(fixed(optimal_loss(f->law, v.target_flops), 4));
    if (ci) text += tr("\n95 %: [%1, %2]").arg(fixed(ci->low, 4), fixed(ci->high, 4));
  } else {
    text += fit_state_ == JobState::cancelled ? tr("\nfit cancelled") : tr("\nno fitted law");
  }
  text += decades > 0 ? tr("\n%1 decades beyond the ladder").arg(fixed(decades, 1))
                      : tr("\ninside the ladder (interpolation)");
  if (boot_state_ == JobState::cancelled) text += tr("\nbootstrap cancelled");
  if (stale) text += tr("\nupdating…");
  fc_note_->setText(text);
  fc_note_->setColor(stale ? kOrange.darker(120) : Qt::black);
  p->legend->clearItems();
  for (QCPGraph* g : {fc_high_, fc_runs_, fc_vertices_, fc_truth_, fc_fit_, fc_target_pt_})
    if (g->visible() && !g->data()->isEmpty()) g->addToLegend();
  p->legend->setWrap(3);
  p->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
  replot(p);
}

void IsoflopsPanel::drawDecompositionPlot() {
  const LadderView& v = view_;
  const FitResult* f = displayFit();
  Key k;
  k.add(v.target_flops, f != nullptr, v.truth.has_value(), static_cast<int>(fit_state_));
  if (f) k.law(f->law);
  if (v.truth) k.law(*v.truth);
  if (!inputsChanged(3, std::move(k.v))) return;
  PlotWidget* p = decomposition_plot_;
  for (QCPBars* b : dec_bars_) b->data()->clear();
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  double top = 0;
  int slot = 0;
  auto add = [&](const LossLaw& law, const QString& name) {
    const ComputeOptimum o = analytic_optimum(law, v.target_flops);
    const LossDecomposition dd = decompose_loss(law, o.n_params, o.n_tokens);
    dec_bars_[0]->addData(slot, dd.irreducible);
    dec_bars_[1]->addData(slot, dd.capacity);
    dec_bars_[2]->addData(slot, dd.data);
    ticker->addTick(slot, name);
    QCPItemText* t = dec_labels_[static_cast<std::size_t>(slot)];
    t->setVisible(true);
    t->position->setCoords(slot, dd.irreducible * 0.5);
    t->setText(tr("data %1\ncap. %2\nE %3\n= %4")
                   .arg(fixed(dd.data, 3), fixed(dd.capacity, 3), fixed(dd.irreducible, 3),
                        fixed(dd.total, 3)));
    top = std::max(top, dd.total);
    ++slot;
  };
  if (f) add(f->law, fit_state_ == JobState::pending ? tr("fitted (updating…)") : tr("fitted law"));
  if (v.truth) add(*v.truth, tr("true law"));
  for (int i = slot; i < 2; ++i) dec_labels_[static_cast<std::size_t>(i)]->setVisible(false);
  p->xAxis->setTicker(ticker);
  p->xAxis->setRange(-0.6, std::max(0, slot - 1) + 0.6);
  p->yAxis->setRange(0, std::max(top, 0.1) * 1.06);
  p->xAxis->setLabel(tr("each law at its own optimum for C* = %1").arg(fmtSci(v.target_flops)));
  dec_note_->setVisible(slot == 0);
  dec_note_->setText(fit_state_ == JobState::cancelled ? tr("fit cancelled: press Recompute")
                                                       : tr("no fitted law (see status)"));
  replot(p);
}

void IsoflopsPanel::drawRecipePlot() {
  const LadderView& v = view_;
  const FitResult* f = displayFit();
  std::optional<LossLaw> base;
  QString base_name;
  if (f) {
    base = f->law;
    base_name = tr("baseline (fit)");
  } else if (v.truth) {
    base = *v.truth;
    base_name = tr("baseline (true)");
  }
  Key k;
  k.add(v.target_flops, base.has_value(), params_.candidate_preset, params_.candidate_a_mult,
        params_.candidate_b_mult, params_.candidate_dalpha, params_.candidate_dbeta);
  if (base) k.law(*base);
  if (!inputsChanged(4, std::move(k.v))) return;
  PlotWidget* p = recipe_plot_;
  if (!base) {
    rc_base_->data()->clear();
    rc_cand_->data()->clear();
    rc_delta_->data()->clear();
    rc_zero_->data()->clear();
    rc_cross_->setVisible(false);
    rc_note_->setText(tr("no fitted law yet"));
    replot(p);
    return;
  }
  const LossLaw cand = candidateLaw(*base);
  const RecipeComparison r = compare_recipes(*base, cand, v.target_flops);
  const double lo = std::min(1e17, r.crossover_flops.value_or(1e17) / 3),
               hi = std::max({1e27, v.target_flops * 10, r.crossover_flops.value_or(1e27) * 3});
  const std::vector<double> cs = logGrid(lo, hi, 90);
  const RecipeCurves rc = recipe_curves(*base, cand, cs);
  const std::vector<double>&by = rc.baseline, &cy = rc.candidate, &dy = rc.delta;
  double ymin = 1e300, ymax = -1e300, dmin = 0, dmax = 0;
  for (std::size_t i = 0; i < cs.size(); ++i) {
    if (std::isfinite(by[i]) && std::isfinite(cy[i])) {
      ymin = std::min({ymin, by[i], cy[i]});
      ymax = std::max({ymax, by[i], cy[i]});
      dmin = std::min(dmin, dy[i]);
      dmax = std::max(dmax, dy[i]);
    }
  }
  setData(rc_base_, cs, by);
  setData(rc_cand_, cs, cy);
  setData(rc_delta_, cs, dy);
  setData(rc_zero_, {lo, hi}, {0.0, 0.0});
  {
    // Δ in the lower part of the plot, under the notes.
    const double dspan = std::max(dmax - dmin, 1e-3);
    p->yAxis2->setRange(dmin - 0.1 * dspan, dmax + 1.2 * dspan);
  }
  rc_base_->setName(base_name);
  p->xAxis->setRange(lo, hi);
  const double span = std::max(ymax - ymin, 1e-3);
  p->yAxis->setRange(ymin - 0.05 * span, ymax + 0.05 * span);
  placeV(rc_target_, v.target_flops);
  const bool cross = r.crossover_flops && *r.crossover_flops >= lo && *r.crossover_flops <= hi;
  rc_cross_->setVisible(cross);
  if (cross) placeV(rc_cross_, *r.crossover_flops);
  QString text = tr("at C* = %1:\nΔ = %2 nats\n→ %3")
                     .arg(fmtSci(v.target_flops))
                     .arg((r.delta < 0 ? QStringLiteral("\u2212") : QStringLiteral("+")) +
                          fixed(std::abs(r.delta), 4))
                     .arg(r.candidate_wins ? tr("candidate wins") : tr("baseline wins"));
  if (r.crossover_flops) {
    text += tr("\ncrossover at %1;\n%2 wins above")
                .arg(fmtSci(*r.crossover_flops))
                .arg(r.candidate_wins_above_crossover.value_or(false) ? tr("candidate")
                                                                      : tr("baseline"));
    if (r.crossovers_flops.size() > 1) text += tr(" (%1 crossings)").arg(r.crossovers_flops.size());
  } else {
    text += tr("\nno crossover\nin 1e16–1e28");
  }
  rc_note_->setText(text);
  replot(p);
}

void IsoflopsPanel::drawDesignPlot() {
  const LadderView& v = view_;
  Key k;
  k.add(v.target_flops);
  for (double x : v.design_log10_flops) k.add(x);
  if (!inputsChanged(5, std::move(k.v))) return;
  PlotWidget* p = design_plot_;
  const double lo = v.design_log10_flops.front();
  const LadderDesignOptions designs = ladder_design_options(v.design_log10_flops, v.target_flops);
  const double target = designs.target_log10_flops;
  QString plan_text;
  if (designs.plan) {
    const LadderDesign& plan = *designs.plan;
    plan_text = tr("3 % plan: %1 budgets %2–%3,\n%4 of C*")
                    .arg(plan.budgets_flops.size())
                    .arg(fmtSci(plan.budgets_flops.front()), fmtSci(plan.budgets_flops.back()),
                         qs(format_percent(plan.fraction_of_flagship, 2)));
  } else {
    plan_text = tr("3 % plan: C* too small\nfor a ladder from %1").arg(fmtSci(std::pow(10.0, lo)));
  }
  ds_this_->data()->clear();
  ds_bars_->data()->clear();
  double vmin = 1e300, vmax = 0;
  for (std::size_t i = 0; i < designs.options.size(); ++i) {
    const double var = designs.options[i].variance;
    QCPItemText* t = ds_labels_[i];
    t->setVisible(var > 0);
    if (var <= 0) continue;
    (i == 0 ? ds_this_ : ds_bars_)->addData(static_cast<double>(i), var);
    vmin = std::min(vmin, var);
    vmax = std::max(vmax, var);
    t->position->setCoords(static_cast<double>(i), var);
    t->setText(QString::number(var, var < 10 ? 'f' : 'g', var < 10 ? 2 : 3));
  }
  if (vmax > 0) {
    p->yAxis->setRange(vmin / 3, vmax * 12);
    ds_this_->setBaseValue(vmin / 3);
    ds_bars_->setBaseValue(vmin / 3);
  }
  p->xAxis->setLabel(tr("design, Var at log10 C* = %1 (x = log10 C)").arg(fixed(target, 1)));
  ds_note_->setText(plan_text);
  replot(p);
}

// ====================================================================== help

QString IsoflopsPanel::helpText() {
  return tr(
      "<h3>IsoFLOPs &amp; scaling laws</h3>"
      "<p>Turn a ladder of cheap runs into a forecast for the run you can afford once (seed Phase "
      "01).</p>"
      "<p><b>Left</b>: the ladder. By default it is synthetic: for each compute budget C, runs of "
      "several sizes N with D = C/6N tokens, their losses drawn from a ground-truth law L = E + "
      "A/N^α + "
      "B/D^β with seeded noise. Or load a CSV of real runs (columns found by name: N or \"Model "
      "Size\"; "
      "D, or C / \"Training FLOP\" with D = C/6N; loss; an optional budget label). The Chinchilla "
      "Figure 4 "
      "data of Besiroglu et al. fits to E ≈ 1.817.</p>"
      "<p><b>Plots</b>: (1) loss vs N for each budget, with the fitted parabola in log10 N and its "
      "vertex "
      "(the budget's compute-optimal N); (2) the vertices' N_opt and D_opt vs C with the power "
      "laws "
      "N_opt ∝ C^a, D_opt ∝ C^b (a + b must be 1) and Kaplan's 0.73 and Chinchilla's 0.5 slopes; "
      "(3) the fitted law's optimal loss vs C out to the target C*, the bootstrap's 95 % band, and "
      "how "
      "many decades the forecast extrapolates; (4) the loss at C* split into E, A/N^α and B/D^β; "
      "(5) the fitted law against a candidate recipe, with the compute where they cross — the "
      "crossover is the decision, not the winner at one scale; (6) the extrapolation variance "
      "1/n + (x* − x̄)²/Σ(x − x̄)² (x = log10 C) of alternative ladder designs: spread beats "
      "clustering.</p>"
      "<p><b>The Kaplan → Chinchilla lesson</b>: tick <i>Inject the LR-decay bias</i>. Runs read "
      "off a "
      "schedule planned for a longer horizon are penalized more the fewer tokens they saw, so the "
      "bias "
      "is not uniform: it tilts the vertices and moves the recommended N_opt (read-out <i>With "
      "bias</i>). "
      "A uniform offset (<i>With offset</i>) shifts every parabola up and moves nothing.</p>"
      "<p><b>Live vs settled</b>: the ladder, parabolas and exponents follow every slider tick. "
      "The "
      "parametric fit (Huber on log residuals by default) and the bootstrap run off the UI thread "
      "once "
      "the inputs have been still for 150 ms; until then the forecast is greyed and marked "
      "<i>updating…</i>. Cancel stops them; Recompute runs them again. The target C* follows the "
      "Budget panel's compute unless you untick <i>follows the Budget panel</i>.</p>"
      "<p>Hover a plot for values; right-click to save it (PNG, vector PDF) or its data "
      "(CSV).</p>");
}

}  // namespace napkin

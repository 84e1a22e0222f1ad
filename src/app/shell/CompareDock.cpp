#include "shell/CompareDock.h"
#include "Text.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QElapsedTimer>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>
#include <QTableView>
#include <QTimer>
#include <QtConcurrent>
#include <cmath>
#include <limits>

#include <QFutureWatcher>
#include <optional>
#include <vector>

#include "PlotStyle.h"
#include "ScenarioModel.h"
#include "atomic_writer.h"
#include "compare.h"
#include "format.h"
#include "shell/BaselineController.h"
#include "ui_CompareDock.h"

namespace napkin {

struct CompareDock::Work {
  struct Result {
    int generation = 0;
    Scenario scenario;
    std::vector<HeadlineOutput> outputs;
    QString error;
  };
  QFutureWatcher<Result> a, b;
  int gen_a = 0, gen_b = 0;      // the latest request: older results are dropped
  std::optional<Result> ra, rb;  // the latest results (rb->scenario: plan B's inputs)

  static QFuture<Result> run(int generation, const Scenario& s) {
    return QtConcurrent::run([generation, s] {
      Result r;
      r.generation = generation;
      r.scenario = s;
      try {
        r.outputs = headline_outputs(s);
      } catch (const std::exception& e) {
        r.error = QString::fromStdString(e.what());
      }
      return r;
    });
  }
};

namespace {

// The sort key of every cell (Qt::UserRole): the natural order for the first
// column, the relative change for Δ, the text elsewhere.
constexpr int kSortRole = Qt::UserRole;
constexpr int kNumberRole = Qt::UserRole + 1;  // the plain number, for CSV
// The Δ sort key of a row without a change (an input, a missing value): last
// when sorted by largest change.
constexpr double kNoChange = std::numeric_limits<double>::lowest();

QString csvField(const QString& s) {
  if (!s.contains(QLatin1Char(',')) && !s.contains(QLatin1Char('"')) &&
      !s.contains(QLatin1Char('\n')))
    return s;
  return QLatin1Char('"') + QString(s).replace(QLatin1Char('"'), QLatin1String("\"\"")) +
         QLatin1Char('"');
}

QString number(const QVariant& v) {
  return v.isValid() ? QString::number(v.toDouble(), 'g', 17) : QString();
}

}  // namespace

CompareDock::CompareDock(ScenarioModel* model, BaselineController* baseline, QWidget* parent)
    : QDockWidget(tr("Compare: plan A vs plan B"), parent), model_(model), baseline_(baseline) {
  setObjectName(QStringLiteral("compareDock"));
  // The body's frame is the form ui/CompareDock.ui.
  auto* body = new QWidget(this);
  Ui::CompareDock ui;
  ui.setupUi(body);
  status_ = ui.compareStatus;
  busy_ = ui.busy;
  busy_->hide();
  export_ = ui.exportCsv;
  QPushButton* copy = ui.copy;

  items_ = new QStandardItemModel(0, column_count, this);
  items_->setHorizontalHeaderLabels(
      {tr("Kind"), tr("Name"), tr("Plan A"), tr("Plan B"), tr("Δ (B − A)"), tr("Better")});
  proxy_ = new QSortFilterProxyModel(this);
  proxy_->setSourceModel(items_);
  proxy_->setSortRole(kSortRole);
  proxy_->setSortCaseSensitivity(Qt::CaseInsensitive);
  table_ = ui.compareTable;
  table_->setModel(proxy_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(kind_col, Qt::AscendingOrder);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setSectionResizeMode(name_col, QHeaderView::Stretch);
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
  setWidget(body);

  auto* copy_action = new QAction(tr("Copy rows"), table_);
  copy_action->setShortcut(QKeySequence::Copy);
  copy_action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  copy_action->setStatusTip(tr("Copy the selected rows as tab-separated text"));
  table_->addAction(copy_action);
  connect(copy_action, &QAction::triggered, this, &CompareDock::copySelection);
  connect(copy, &QPushButton::clicked, this, &CompareDock::copySelection);
  connect(export_, &QPushButton::clicked, this, &CompareDock::exportRequested);

  work_ = std::make_unique<Work>();
  connect(&work_->a, &QFutureWatcher<Work::Result>::finished, this, [this] {
    Work::Result r = work_->a.result();
    if (r.generation != work_->gen_a) return;  // a newer pin is on its way
    work_->ra = std::move(r);
    rebuild();
  });
  connect(&work_->b, &QFutureWatcher<Work::Result>::finished, this, [this] {
    Work::Result r = work_->b.result();
    if (r.generation != work_->gen_b) return;  // the scenario changed since
    work_->rb = std::move(r);
    rebuild();
  });
  debounce_ = new QTimer(this);
  debounce_->setSingleShot(true);
  debounce_->setInterval(250);  // after a drag settles
  connect(debounce_, &QTimer::timeout, this, &CompareDock::computeB);
  connect(baseline_, &BaselineController::changed, this, &CompareDock::baselineChanged);
  connect(model_, &ScenarioModel::changed, this, &CompareDock::scenarioChanged);
  baselineChanged();
}

CompareDock::~CompareDock() {
  // The workers hold copies of their scenarios, never this dock: let them finish unobserved.
  work_->a.disconnect(this);
  work_->b.disconnect(this);
}

void CompareDock::baselineChanged() {
  ++work_->gen_a;
  work_->ra.reset();
  if (const Scenario* a = baseline_->baseline()) {
    work_->a.setFuture(Work::run(work_->gen_a, *a));  // once per pin, not per change
    scenarioChanged();
  }
  rebuild();
}

void CompareDock::scenarioChanged() {
  stale_b_ = true;
  if (baseline_->isPinned() && isVisible()) debounce_->start();
  setStatus();
}

void CompareDock::showEvent(QShowEvent* event) {
  QDockWidget::showEvent(event);
  if (stale_b_ && baseline_->isPinned()) computeB();
}

void CompareDock::computeB() {
  debounce_->stop();
  stale_b_ = false;
  work_->b.setFuture(Work::run(++work_->gen_b, model_->scenario()));
  setStatus();
}

bool CompareDock::isBusy() const {
  const Work& w = *work_;
  const bool a_pending = baseline_->isPinned() && (!w.ra || w.ra->generation != w.gen_a);
  const bool b_pending = baseline_->isPinned() && (!w.rb || w.rb->generation != w.gen_b);
  return a_pending || b_pending || debounce_->isActive();
}

void CompareDock::settle() {
  if (!baseline_->isPinned()) return;
  if (stale_b_ || debounce_->isActive() || !work_->rb) computeB();
  QElapsedTimer clock;
  clock.start();
  while (isBusy() && clock.elapsed() < 60000)
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
}

QString CompareDock::statusText() const { return status_->text(); }

void CompareDock::setStatus() {
  const bool busy = isBusy();
  // The animated bar only while a computation runs: during a drag (the
  // debounce) it would repaint the dock on every frame.
  busy_->setVisible(work_->a.isRunning() || work_->b.isRunning());
  export_->setEnabled(items_->rowCount() > 0);
  if (!baseline_->isPinned()) {
    status_->setText(
        tr("Pin a baseline (View → Pin as baseline, Ctrl+B) to compare the "
           "current scenario with it."));
    return;
  }
  QString text;
  int inputs = 0;
  for (int r = 0; r < items_->rowCount(); ++r)
    if (items_->item(r, kind_col)->text() == tr("Input")) ++inputs;
  if (busy)
    text = tr("Computing the headline outputs…");
  else if (work_->ra && !work_->ra->error.isEmpty())
    text = tr("Plan A cannot be computed: %1").arg(work_->ra->error);
  else if (work_->rb && !work_->rb->error.isEmpty())
    text = tr("Plan B cannot be computed: %1").arg(work_->rb->error);
  else
    text = inputs == 0   ? tr("No input differs from the baseline.")
           : inputs == 1 ? tr("1 input differs from the baseline.")
                         : tr("%1 inputs differ from the baseline.").arg(inputs);
  status_->setText(tr("A = %1, B = the current scenario. %2").arg(baseline_->label(), text));
}

void CompareDock::rebuild() {
  items_->removeRows(0, items_->rowCount());
  const Scenario* a = baseline_->baseline();
  const auto& ra = work_->ra;
  const auto& rb = work_->rb;
  if (a && rb && rb->generation == work_->gen_b) {
    int order = 0;
    auto add = [&](const QString& kind, const QString& name, const QString& va, const QString& vb,
                   const QString& delta, QVariant delta_sort, const QString& better,
                   const QColor& better_color, QVariant na, QVariant nb, QVariant nd) {
      QList<QStandardItem*> row;
      for (const QString& t : {kind, name, va, vb, delta, better}) {
        auto* it = new QStandardItem(t);
        it->setData(t, kSortRole);
        row << it;
      }
      row[kind_col]->setData(order++, kSortRole);
      row[delta_col]->setData(delta_sort, kSortRole);
      row[a_col]->setData(na, kNumberRole);
      row[b_col]->setData(nb, kNumberRole);
      row[delta_col]->setData(nd, kNumberRole);
      if (better_color.isValid()) row[better_col]->setForeground(better_color);
      items_->appendRow(row);
    };
    for (const InputDifference& d : differing_inputs(*a, rb->scenario))
      add(tr("Input"), qs(d.name), qs(d.a), qs(d.b), QString(), kNoChange, QString(), QColor(), {},
          {}, {});
    if (ra && ra->generation == work_->gen_a && ra->error.isEmpty() && rb->error.isEmpty()) {
      for (const OutputComparison& c : compare_outputs(ra->outputs, rb->outputs)) {
        QString delta;
        double sort = kNoChange;
        if (c.delta) {
          delta = qs(format_delta(*c.delta, c.unit));
          if (c.ratio && c.unit != Unit::fraction && *c.delta != 0)
            delta += QStringLiteral(" (%1 %)").arg(qs(format_signed((*c.ratio - 1) * 100, 1)));
          sort = c.ratio ? *c.ratio - 1 : *c.delta;
        }
        QString better = tr("—");
        QColor colour;
        switch (c.better) {
          case Winner::a: better = tr("A"), colour = plot_color::fail; break;
          case Winner::b: better = tr("B"), colour = plot_color::ok; break;
          case Winner::same: better = tr("same"); break;
          case Winner::none: break;
        }
        const auto num = [](const std::optional<double>& v) {
          return v ? QVariant(*v) : QVariant();
        };
        // The value alone; the full display (with its context) is the tooltip.
        const auto value = [&](const std::optional<double>& v, const std::string& display) {
          return v ? qs(format_quantity(*v, c.unit)) : qs(display);
        };
        add(tr("Output"), qs(c.name), value(c.a, c.a_display), value(c.b, c.b_display), delta, sort,
            better, colour, num(c.a), num(c.b), num(c.delta));
        items_->item(items_->rowCount() - 1, a_col)->setToolTip(qs(c.a_display));
        items_->item(items_->rowCount() - 1, b_col)->setToolTip(qs(c.b_display));
      }
    }
  }
  proxy_->invalidate();
  setStatus();
}

QString CompareDock::tsv(bool selected_only) const {
  QStringList lines;
  const QItemSelectionModel* sel = table_->selectionModel();
  for (int r = 0; r < proxy_->rowCount(); ++r) {
    if (selected_only && !sel->isRowSelected(r, QModelIndex())) continue;
    QStringList cells;
    for (int c = 0; c < column_count; ++c)
      cells << proxy_->index(r, c).data().toString().replace(QLatin1Char('\t'), QLatin1Char(' '));
    lines << cells.join(QLatin1Char('\t'));
  }
  return lines.isEmpty() ? QString() : lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

void CompareDock::copySelection() {
  const bool any = table_->selectionModel()->hasSelection();
  QApplication::clipboard()->setText(tsv(any));
}

QString CompareDock::csv() const {
  QStringList header;
  for (int c = 0; c < column_count; ++c)
    header << csvField(items_->horizontalHeaderItem(c)->text());
  header << QStringLiteral("A (number)") << QStringLiteral("B (number)")
         << QStringLiteral("Δ (number)");
  QString out = header.join(QLatin1Char(',')) + QLatin1Char('\n');
  for (int r = 0; r < proxy_->rowCount(); ++r) {
    QStringList cells;
    for (int c = 0; c < column_count; ++c) cells << csvField(proxy_->index(r, c).data().toString());
    for (int c : {a_col, b_col, delta_col}) cells << number(proxy_->index(r, c).data(kNumberRole));
    out += cells.join(QLatin1Char(',')) + QLatin1Char('\n');
  }
  return out;
}

bool CompareDock::exportCsv(const QString& path, QString* error) const {
  return write_file_atomically(path, csv().toUtf8(), error);
}

}  // namespace napkin

#include "parallel/LayoutTableModel.h"
#include "Text.h"

#include <QColor>
#include <algorithm>

#include "PlotStyle.h"
#include "format.h"

namespace napkin {

namespace {}  // namespace

void LayoutTableModel::setLayouts(std::vector<LayoutResult> layouts) {
  beginResetModel();
  layouts_ = std::move(layouts);
  endResetModel();
}

int LayoutTableModel::rowOf(const Layout& layout) const {
  for (std::size_t i = 0; i < layouts_.size(); ++i)
    if (layouts_[i].layout == layout) return static_cast<int>(i);
  return -1;
}

int LayoutTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(layouts_.size());
}

int LayoutTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumns;
}

QVariant LayoutTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const LayoutResult& r = layouts_[static_cast<std::size_t>(index.row())];
  const Layout& l = r.layout;
  const auto col = static_cast<Column>(index.column());
  if (role == SortRole) {
    switch (col) {
      case kRank: return index.row();
      case kTp: return static_cast<qlonglong>(l.tp);
      case kPp: return static_cast<qlonglong>(l.pp);
      case kVpp: return static_cast<qlonglong>(l.vpp);
      case kDp: return static_cast<qlonglong>(l.dp);
      case kCp: return static_cast<qlonglong>(l.cp);
      case kEp: return static_cast<qlonglong>(l.ep);
      case kZero: return l.zero;
      case kMicroBatch: return static_cast<qlonglong>(l.micro_batch);
      case kRecompute:  // none, selective (by its modules), full of N layers (by N), full (by
                        // layers to a checkpoint)
        if (l.recompute == Checkpointing::full && l.recompute_layers > 0)
          return 200'000 + static_cast<int>(std::min<std::int64_t>(l.recompute_layers, 99'999));
        if (l.recompute == Checkpointing::full)
          return 400'000 + static_cast<int>(std::min<std::int64_t>(l.recompute_group, 99'999));
        return static_cast<int>(l.recompute) * 200'000 + static_cast<int>(l.recompute_modules);
      case kStep: return r.step_seconds;
      case kTokens: return r.tokens_per_second_per_chip;
      case kMfu: return r.mfu;
      case kMemory: return static_cast<qlonglong>(r.memory.total_bytes);
      case kFits: return r.fits ? 1 : 0;
      case kColumns: break;
    }
    return {};
  }
  if (role == Qt::DisplayRole) {
    switch (col) {
      case kRank: return index.row() + 1;
      case kTp:
      case kPp:
      case kVpp:
      case kDp:
      case kCp:
      case kMicroBatch: return data(index, SortRole);  // the counts themselves
      case kZero:  // "3/8": over groups of 8 ranks, the groups replicas
        if (l.shard > 0 && l.shard != l.dp * l.cp) return tr("%1/%2").arg(l.zero).arg(l.shard);
        return data(index, SortRole);
      case kEp:  // EP folded over TP names the experts' own TP
        if (l.etp > 0 && l.etp != l.tp) return tr("%1 (ETP %2)").arg(l.ep).arg(l.etp);
        return data(index, SortRole);
      case kRecompute: return qs(recompute_text(l));  // "full:3", as --layout writes it
      case kStep: return qs(format_seconds(r.step_seconds));
      case kTokens: return qs(format_grouped(r.tokens_per_second_per_chip, 0));
      case kMfu: return qs(format_percent(r.mfu));
      case kMemory: return qs(format_bytes(static_cast<double>(r.memory.total_bytes), 1));
      case kFits: return r.fits ? tr("yes") : tr("no");
      case kColumns: break;
    }
    return {};
  }
  if (role == Qt::ToolTipRole) {
    QString tip = qs(to_string(l));
    if (!r.reason.empty()) tip += QStringLiteral("\n") + qs(r.reason);
    return tip;
  }
  if (role == Qt::ForegroundRole && !r.fits) return QColor(plot_color::fail);
  if (role == Qt::TextAlignmentRole)
    return col == kRecompute || col == kFits ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                             : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

QVariant LayoutTableModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal) return {};
  static const char* names[kColumns] = {"#",    "TP",         "PP",   "VPP",      "DP",
                                        "CP",   "EP",         "ZeRO", "mb",       "recompute",
                                        "step", "tok/s/chip", "MFU",  "peak mem", "fits"};
  static const char* tips[kColumns] = {
      "rank in the search: fitting layouts by step time, then the rest by excess memory",
      "tensor-parallel ranks",
      "pipeline stages",
      "model chunks per pipeline rank (interleaved schedule)",
      "data-parallel replicas",
      "context-parallel ranks",
      ("expert-parallel ranks; (ETP n): each expert split over n ranks rather than TP's, EP "
       "folded over TP as Megatron Core's --expert-tensor-parallel-size runs it"),
      ("ZeRO stage; /n: sharded over groups of n of the DP × CP ranks, the groups replicas "
       "(hybrid sharding)"),
      "sequences per micro-batch",
      "activation recomputation",
      "seconds per optimizer step",
      "tokens per second per chip",
      "model FLOPs utilization",
      "memory of the peak pipeline stage's rank",
      "the peak stage fits in HBM"};
  if (section < 0 || section >= kColumns) return {};
  if (role == Qt::DisplayRole) return tr(names[section]);
  if (role == Qt::ToolTipRole) return tr(tips[section]);
  return {};
}

LayoutFilter::LayoutFilter(QObject* parent) : QSortFilterProxyModel(parent) {
  setSortRole(LayoutTableModel::SortRole);
}

void LayoutFilter::setShowAll(bool on) {
  if (on == show_all_) return;
  show_all_ = on;
  invalidateFilter();
}

bool LayoutFilter::filterAcceptsRow(int row, const QModelIndex& parent) const {
  if (show_all_) return true;
  const auto* m = static_cast<const LayoutTableModel*>(sourceModel());
  (void)parent;
  return row < m->rowCount() && m->layout(row).fits;
}

}  // namespace napkin

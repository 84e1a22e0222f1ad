// The ranked layouts of a search as a table: one row per layout, in the
// search's order (those that fit by step time, then the rest by how far they
// exceed HBM). Sorting uses each column's number (SortRole), so a proxy sorts
// step seconds as numbers, not text.
#pragma once

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <optional>

#include "parallel.h"

namespace napkin {

class LayoutTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    kRank,
    kTp,
    kPp,
    kVpp,
    kDp,
    kCp,
    kEp,
    kZero,
    kMicroBatch,
    kRecompute,
    kStep,
    kTokens,
    kMfu,
    kMemory,
    kFits,
    kColumns
  };
  static constexpr int SortRole = Qt::UserRole + 1;

  using QAbstractTableModel::QAbstractTableModel;

  void setLayouts(std::vector<LayoutResult> layouts);
  const LayoutResult& layout(int row) const { return layouts_[static_cast<std::size_t>(row)]; }
  // The row of `layout`, or -1.
  int rowOf(const Layout& layout) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  std::vector<LayoutResult> layouts_;
};

// Sorts by SortRole and can hide the layouts that do not fit.
class LayoutFilter : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  explicit LayoutFilter(QObject* parent = nullptr);
  void setShowAll(bool on);
  bool showAll() const { return show_all_; }

 protected:
  bool filterAcceptsRow(int row, const QModelIndex& parent) const override;

 private:
  bool show_all_ = false;
};

}  // namespace napkin

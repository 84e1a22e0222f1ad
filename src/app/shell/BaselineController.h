// Plan A: a scenario pinned as the baseline the current scenario (plan B) is
// compared with. It is a frozen copy, from the current scenario (View → Pin
// as baseline) or from a file (File → Open as baseline…), with a label that
// says which ("llama-70b.napkin.json", "pinned 10:42"), and it is kept with
// the session.
#pragma once

#include <QDateTime>
#include <QObject>
#include <QString>
#include <optional>

#include "scenario.h"

class QSettings;

namespace napkin {

class BaselineController : public QObject {
  Q_OBJECT
 public:
  explicit BaselineController(QObject* parent = nullptr);

  // The pinned scenario, or nullptr when none is pinned.
  const Scenario* baseline() const { return baseline_ ? &*baseline_ : nullptr; }
  bool isPinned() const { return baseline_.has_value(); }
  // What the badge shows: the file's name, or "pinned 10:42".
  QString label() const { return label_; }
  // The file it came from ("" when pinned from the current scenario).
  QString sourcePath() const { return path_; }

  // Freezes `s` as plan A, labelled with the time (or `label` when given).
  void pin(const Scenario& s, const QString& label = QString());
  // Loads a saved scenario as plan A. Throws std::exception (the path and
  // the reason) and keeps the current baseline on failure.
  void pinFile(const QString& path);
  void unpin();
  // Brings back a baseline as it was (crash recovery): its label and file.
  void restoreAs(const Scenario& s, const QString& label, const QString& path);

  // The session keeps the baseline (its document, label and path).
  void save(QSettings& settings) const;
  // Restores it; a baseline that no longer parses is dropped (false).
  bool restore(QSettings& settings);

 signals:
  // Pinned, re-pinned or unpinned.
  void changed();

 private:
  std::optional<Scenario> baseline_;
  QString label_;
  QString path_;
};

}  // namespace napkin

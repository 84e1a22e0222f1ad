// Widget tests that crash, recover or autosave start from an empty autosave
// folder: every autosave, its lock and side files, and the recovered/ folder.
#pragma once

#include <QDir>
#include <QString>

#include "shell/MainWindow.h"

namespace napkin::testing_util {

inline void removeAutosaves() {
  QDir dir(MainWindow::autosaveFolder());
  for (const QString& f : dir.entryList({QStringLiteral("autosave*")}, QDir::Files | QDir::Hidden))
    dir.remove(f);
  QDir(MainWindow::autosaveFolder() + QStringLiteral("/recovered")).removeRecursively();
}

}  // namespace napkin::testing_util

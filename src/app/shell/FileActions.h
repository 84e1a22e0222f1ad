// Helpers of the window's file actions (shell/FileActions.cpp holds the
// MainWindow members that open, save, import, export and pin files).
#pragma once

#include <QString>

class QImage;
class QWidget;

namespace napkin {

class MainWindow;
struct Scenario;

// What a save (and the autosave and the session) writes: the window's
// scenario with the view state it keeps, the MoE run's step count as its run
// of record. *note: a sentence when the file cannot replay that run exactly.
Scenario savedDocument(const MainWindow& window, QString* note = nullptr);

// Writes `image` as PNG through the atomic writer: false with *error (the
// path and the OS's reason) on failure, and the previous file is untouched.
bool writeImage(const QImage& image, const QString& path, QString* error);

// "" for a regular file (or a path that cannot be examined: the read then
// says why); otherwise why it is not opened as a scenario: "PATH is a named
// pipe (FIFO), not a scenario file; nothing was opened" (also a device, a
// folder, a socket). The file is not opened: opening a FIFO waits for a
// writer. Open…, the recent list and the last session ask it first.
QString notAScenarioFile(const QString& path);

// The Import model dialog: a config.json file, or a checkpoint folder (the
// folder shown, or the one selected, via "Import this folder"). "" when cancelled.
QString chooseModelPath(QWidget* parent);

// File → Import training config…'s file dialog. "" when cancelled.
QString chooseTrainingConfigPath(QWidget* parent);

}  // namespace napkin

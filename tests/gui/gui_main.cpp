// GoogleTest main for widget tests: a real QApplication on the offscreen
// platform, with settings, autosaves and sessions isolated from the user's
// and from other test processes running at the same time (CTest runs tests
// in parallel, one process each): each process gets its own home folder.
#include <gtest/gtest.h>

#include <QApplication>
#include <QByteArray>
#include <QStandardPaths>
#include <QTemporaryDir>

int main(int argc, char** argv) {
  qputenv("QT_QPA_PLATFORM", "offscreen");
  // Fonts keep their shared cache; everything Napkin writes goes to a fresh home.
  const QByteArray home = qgetenv("HOME");
  if (qEnvironmentVariableIsEmpty("XDG_CACHE_HOME") && !home.isEmpty())
    qputenv("XDG_CACHE_HOME", home + "/.cache");
  QTemporaryDir fresh_home;
  if (fresh_home.isValid()) qputenv("HOME", fresh_home.path().toLocal8Bit());
  QStandardPaths::setTestModeEnabled(true);
  Q_INIT_RESOURCE(napkin);  // the window icon, in the napkin_gui static library
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("NapkinTest"));
  QApplication::setApplicationName(QStringLiteral("NapkinTest"));
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

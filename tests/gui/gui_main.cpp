// GoogleTest main for widget tests: a real QApplication on the offscreen
// platform, with settings isolated from the user's.
#include <gtest/gtest.h>

#include <QApplication>
#include <QStandardPaths>

int main(int argc, char** argv) {
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QStandardPaths::setTestModeEnabled(true);
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("NapkinTest"));
  QApplication::setApplicationName(QStringLiteral("NapkinTest"));
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

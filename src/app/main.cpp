#include <QApplication>

#include "MainWindow.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("Napkin"));
  QApplication::setOrganizationName(QStringLiteral("Napkin"));
  QApplication::setApplicationVersion(QStringLiteral(NAPKIN_VERSION));
  napkin::MainWindow w;
  w.show();
  return QApplication::exec();
}

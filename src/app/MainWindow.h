#pragma once

#include <QMainWindow>

namespace napkin {

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
};

}  // namespace napkin

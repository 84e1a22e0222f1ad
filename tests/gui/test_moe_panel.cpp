#include <gtest/gtest.h>

#include <QTest>

// The model library speaks std::string (UTF-8); widgets speak QString.
#pragma once

#include <QString>
#include <string_view>

namespace napkin {

inline QString qs(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

}  // namespace napkin

#include "roofline/RooflineFormat.h"

#include <cmath>

#include "PlotWidget.h"
#include "Text.h"
#include "format.h"
#include "roofline_view.h"

namespace napkin {

QString intensityText(double v) {
  if (v >= 1e5) return fmtSi(v) + QStringLiteral(" FLOP/B");
  return qs(format_grouped(v, v < 100 ? 1 : 0)) + QStringLiteral(" FLOP/B");
}

QString chipsText(std::int64_t n) {
  return qs(format_grouped(n)) + (n == 1 ? QStringLiteral(" chip") : QStringLiteral(" chips"));
}

QString boundText(Bound b) { return qs(to_string(b)) + QStringLiteral("-bound"); }

QString secondsText(double s) { return qs(format_seconds(s)); }

QString secondsShort(double v) {
  if (v < 1) return QString::number(std::lround(v * 1e3)) + QStringLiteral(" ms");
  if (v < 10) return QString::number(v, 'f', 2) + QStringLiteral(" s");
  if (v < 100) return QString::number(v, 'f', 1) + QStringLiteral(" s");
  if (v < 7200) return QString::number(std::lround(v)) + QStringLiteral(" s");
  return QString::number(v / 3600, 'f', 1) + QStringLiteral(" h");
}

QString numberText(double v) {
  if (!std::isfinite(v)) return QStringLiteral("0");
  return QString::number(v, 'g', 3);
}

QString operationTitle(const PlacedOperation& op, const OperationSetting& s, const ModelShape& m) {
  const auto count = [](std::int64_t v) { return qs(format_count(static_cast<double>(v), 0)); };
  if (op.name == "large matmul")
    return QStringLiteral("matmul %1").arg(s.matmul_dim) + QChar(0x00b3);
  if (op.name == "prefill") return QStringLiteral("prefill %1 tok").arg(count(s.prompt_tokens));
  if (op.name == "decode") return QStringLiteral("decode B=%1").arg(s.decode_batch);
  if (op.name == "layernorm")
    return QStringLiteral("layernorm %1\u00d7%2").arg(count(s.prompt_tokens)).arg(m.d_model);
  if (op.name == "attention") return QStringLiteral("attention @%1").arg(count(s.context_tokens));
  return qs(op.name);
}

QString dtypeText(Dtype d) { return qs(to_string(d)); }

}  // namespace napkin

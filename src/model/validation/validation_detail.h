// What the scoreboard's data-set readers share (inside the validation layer).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "csv.h"
#include "parallel.h"

namespace napkin::validation_detail {

// "MODEL on CHIPS: tp=… pp=… [vpp=…] [cp=…] dp=… [ep=…] [etp=…] mb=… RECOMPUTE",
// the row label every training set prints.
std::string layout_label(const std::string& model, const Layout& l, std::int64_t chips);

// What every row of NVIDIA's performance summaries states: the GPUs, the
// global and micro batch, the sequence length, TP, PP, CP and the virtual
// pipeline stages (blank: none); data parallelism is what is left. The
// columns are found once per table.
class SummaryLayout {
 public:
  explicit SummaryLayout(const CsvText& csv);
  void read(std::size_t r, TrainingJob& j, Layout& l) const;

 private:
  const CsvText& csv_;
  std::size_t gpus_, seq_, batch_, mb_, tp_, pp_, cp_, vp_;
};

}  // namespace napkin::validation_detail

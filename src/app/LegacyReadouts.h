// For the panels not yet on the kit: their read-outs for the report, found
// as the "readout_*" labels beside their name labels (status lines left out). A panel on the kit
// reports from its ReadoutGrid instead; this file goes when the last panel
// has migrated.
#pragma once

#include <vector>

#include "ReportSection.h"

class QWidget;

namespace napkin {

std::vector<ReportRow> legacyReadoutRows(const QWidget* panel);

}  // namespace napkin

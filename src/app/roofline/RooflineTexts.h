// The Roofline panel's tables and notes, formatted from its view: the placed
// operations, the MFU agenda and the scenario model's dimensions on the tile.
// Each is shown on screen and handed to the report as a table (no sentences).
#pragma once

#include <QString>

#include "ReportSection.h"

class QTableWidget;
class QWidget;

namespace napkin {

struct RooflineView;

// The placed operations as a read-only table (operation, FLOPs, bytes,
// intensity, attainable, of peak, verdict: lever).
QTableWidget* makeOperationsTable(QWidget* parent);
void fillOperationsTable(QTableWidget* table, const RooflineView& v);
ReportTable operationsReport(const RooflineView& v);

// The MFU agenda: the step's non-matmul parts, largest idle cost first, and
// what to do about each.
QString agendaHtml(const RooflineView& v);
ReportTable agendaReport(const RooflineView& v);

// The scenario model's matmul dimensions and their tile efficiency.
QString dimensionsHtml(const RooflineView& v);
ReportTable dimensionsReport(const RooflineView& v);

}  // namespace napkin

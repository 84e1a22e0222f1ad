// The napkin-cli command that prints, headless, what a panel shows of a saved
// scenario: the Budget planner (budget --scenario), the Parallelism panel
// (parallel --scenario), the IsoFLOPs panel (isoflops --scenario), the MoE
// router's run of record (moe collapse --scenario), the Serving layout tab's
// benchmark run (serve --scenario); any other panel, the report.
#pragma once

#include <QString>

namespace napkin {

// `text` quoted for a POSIX shell: as it is when it needs no quoting, else in
// single quotes (a quote inside written '\'').
QString shellQuoted(const QString& text);

// "napkin-cli budget --scenario 'my plan.napkin.json'" for the panel keyed
// `panel_key` (Panel::panelKey()) and the scenario saved at `path`.
QString cliCommandFor(const QString& panel_key, const QString& path);

}  // namespace napkin

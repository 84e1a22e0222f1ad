// The napkin-cli command that prints, headless, what a panel shows of a saved
// scenario: the Budget planner (budget --scenario), the Parallelism panel
// (parallel --scenario), the IsoFLOPs panel (isoflops --scenario), the MoE
// router's run of record (moe collapse --scenario), the Serving layout tab's
// benchmark run (serve --scenario); any other panel, the report.
#pragma once

#include <QString>
#include <optional>

namespace napkin {

struct Scenario;

// `text` quoted for a POSIX shell: as it is when it needs no quoting, else in
// single quotes (a quote inside written '\'').
QString shellQuoted(const QString& text);

// "napkin-cli budget --scenario 'my plan.napkin.json'" for the panel keyed
// `panel_key` (Panel::panelKey()) and the scenario saved at `path`.
QString cliCommandFor(const QString& panel_key, const QString& path);

// The flags that carry `current`'s changes since `saved` (the file as last
// saved) into that command: each registered input and choice the command
// takes beside --scenario, and --chip, that differs ("--chips 4096 --days 60
// --engine vllm"; "" when
// nothing differs). nullopt when anything else differs, or when the command
// would refuse the flag (--mfu under a predicted MFU, the budget's flags under
// an IsoFLOPs target of its own): the command then reads the file as saved.
std::optional<QString> cliOverridesFor(const QString& panel_key, const Scenario& saved,
                                       const Scenario& current);

}  // namespace napkin

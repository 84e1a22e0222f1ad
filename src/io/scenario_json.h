// The scenario document: versioned JSON, written atomically.
#pragma once

#include <QJsonObject>
#include <string>
#include <vector>

#include "scenario.h"

namespace napkin {

// 1: the Budget-level inputs. 2: adds the panels' settings (isoflops, moe,
// roofline), the IsoFLOPs ladder's points embedded when loaded from CSV, and
// the shape fields of modern checkpoints (MLA, shared-expert widths, QK-norm,
// norms, MTP), goodput, ranges, the plan mode and the serving chips. Version 1 documents still
// open, with the defaults.
inline constexpr int kScenarioFormatVersion = 2;

// The document as JSON text (UTF-8, indented, keys in a stable order).
std::string scenario_to_json(const Scenario& s);

// Parses a document. Every field is optional (missing fields keep their
// defaults) but a present field must have the right type and range. Throws
// std::invalid_argument naming `source`, the field, the value found and what
// was expected, for malformed, truncated, future-version or out-of-range
// documents. A field this version does not know (a newer version's, or a
// misspelt one) is kept in Scenario::foreign_fields and written back by
// scenario_to_json; one sentence naming them (and the known field a misspelt
// one resembles) goes to `warnings`.
Scenario scenario_from_json(std::string_view json, std::string_view source = "scenario",
                            std::vector<std::string>* warnings = nullptr);

// Reads a file (at most 16 MiB) / writes one through the atomic writer
// (atomic_writer.h): every write, the flush and fsync checked before a
// temporary in the same folder is renamed into place, so a failed save (a full
// disk included) never destroys the previous file; a device or FIFO is written
// through. Both throw std::runtime_error with the path and the OS's reason.
Scenario load_scenario_file(const std::string& path, std::vector<std::string>* warnings = nullptr);
void save_scenario_file(const Scenario& s, const std::string& path);

// A layout as the document's parallel.chosen holds it (tp, pp, vpp, dp, cp,
// ep, etp, zero, micro_batch, sequence_parallel, recompute, recompute_layers,
// recompute_modules); the CLI's JSON prints the same object.
QJsonObject layout_json(const Layout& l);

}  // namespace napkin

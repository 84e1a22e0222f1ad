// What QJsonDocument lets through and a Napkin document must not hold: a
// number outside JSON's grammar (RFC 8259 §6: "5." and ".5" are not JSON,
// nor are hex or a leading "+") and a key given twice in one object (Qt keeps
// the last silently; RFC 8259 §4 leaves the meaning to the reader, and a
// plan must not depend on which copy wins).
#pragma once

#include <string_view>

namespace napkin {

// Throws std::invalid_argument naming `source`, the byte offset, and the key
// path ("hardware.chips") or the number as written. Only the two checks
// above: structure errors are left to the JSON parser that runs next.
void check_strict_json(std::string_view json, std::string_view source);

}  // namespace napkin
